// What calico_encap_migrate observes beyond the check: the nodes' tunnel addresses and readiness, and the
// calico-node DaemonSet's rollout. The cluster is the only state: plans are computed from this alone.

import type { Backend, EncapMode, Live } from "./model.js";

export type TunnelKind = "ipip" | "vxlan" | "vxlanV6";

export interface NodeObservation {
  name: string;
  labels: Record<string, string>;
  /** Node annotations projectcalico.org/IPv4IPIPTunnelAddr, IPv4VXLANTunnelAddr, IPv6VXLANTunnelAddr. */
  tunnel: Record<TunnelKind, string | null>;
  /** The node's calico-node pod is Running and Ready. */
  calicoNodeReady: boolean;
}

export interface RolloutObservation {
  /** The backend the DaemonSet's pod template is rendered for (bird probes, FELIX_VXLANVNI env), null if unknown. */
  templateBackend: Backend | null;
  desired: number;
  updated: number;
  ready: number;
  /** status.observedGeneration has caught up with metadata.generation. */
  observed: boolean;
}

export interface ClusterObservation {
  live: Live;
  nodes: NodeObservation[];
  rollout: RolloutObservation;
}

export interface TargetPool {
  name: string;
  ipipMode: EncapMode;
  vxlanMode: EncapMode;
}

export interface Target {
  pools: TargetPool[];
  backend: Backend;
}
