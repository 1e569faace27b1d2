// What calico_encap_migrate observes beyond the check: the nodes' tunnel addresses and readiness, and the
// calico-node DaemonSet's rollout. The cluster is the only state: plans are computed from this alone.

import type { Backend, EncapMode, Live, MaxUnavailable } from "./model.js";

export type TunnelKind = "ipip" | "vxlan" | "vxlanV6";

export interface NodeObservation {
  name: string;
  labels: Record<string, string>;
  /** Node annotations projectcalico.org/IPv4IPIPTunnelAddr, IPv4VXLANTunnelAddr, IPv6VXLANTunnelAddr. */
  tunnel: Record<TunnelKind, string | null>;
  /** The node's calico-node pod is Running and Ready. */
  calicoNodeReady: boolean;
  /** The Kubernetes Node a Calico Node belongs to (its orchRefs), when it names one. */
  kubeNodeName?: string;
  /** The node's own addresses (Calico Node spec.bgp / spec.addresses, Kubernetes Node status.addresses), no prefix. */
  addresses?: string[];
  /**
   * The subnets the node's addresses sit in, as written with their prefix length ("10.0.5.1/16"): a Calico Node's
   * spec.bgp.ipv4Address / ipv6Address, or calico-node's projectcalico.org/IPv4Address / IPv6Address annotation.
   */
  subnets?: string[];
}

/** A Kubernetes Node as the DaemonSet controller schedules onto it. */
export interface KubeNode {
  name: string;
  labels: Record<string, string>;
  taints: { key: string; value: string; effect: string }[];
}

/** "" stands for an unset field, as in the Kubernetes API. */
export interface Toleration {
  key: string;
  operator: string;
  value: string;
  effect: string;
}

/** One requirement of a nodeSelectorTerm: a label (matchExpressions) or metadata.name (matchFields). */
export interface NodeRequirement {
  field: boolean;
  key: string;
  operator: string;
  values: string[];
}

/** Where the calico-node DaemonSet's pod template may run (spec.template.spec). */
export interface PodPlacement {
  nodeSelector: Record<string, string>;
  tolerations: Toleration[];
  /** nodeAffinity's required nodeSelectorTerms (any term, all its requirements); null when there is none. */
  requiredTerms: NodeRequirement[][] | null;
  hostNetwork: boolean;
}

export interface RolloutObservation {
  /** The backend the DaemonSet's pod template is rendered for (bird probes, FELIX_VXLANVNI env), null if unknown. */
  templateBackend: Backend | null;
  desired: number;
  updated: number;
  ready: number;
  /** status.observedGeneration has caught up with metadata.generation. */
  observed: boolean;
  /**
   * spec.updateStrategy.rollingUpdate.maxUnavailable (null: unset, Kubernetes' default 1); undefined when the
   * DaemonSet was not read or does not roll (OnDelete): then nothing is changed about it.
   */
  maxUnavailable?: MaxUnavailable;
  /** The maxUnavailable a migration found and keeps in the annotation HELD_MAX_UNAVAILABLE; undefined without it. */
  heldMaxUnavailable?: MaxUnavailable;
}

export interface ClusterObservation {
  live: Live;
  /** Calico's nodes: Kubernetes Nodes in KDD, Calico Node objects with the etcd datastore. */
  nodes: NodeObservation[];
  rollout: RolloutObservation;
  /** The Kubernetes Nodes; undefined when not read (every Calico node then counts as one calico-node runs on). */
  kubeNodes?: KubeNode[];
  /** The calico-node DaemonSet's placement; undefined or null when not read. */
  placement?: PodPlacement | null;
}

export interface TargetPool {
  name: string;
  ipipMode: EncapMode;
  vxlanMode: EncapMode;
}

export interface Target {
  pools: TargetPool[];
  backend: Backend;
  /** tunnel_pool_cidr: pre-allocate VTEPs from a Tunnel-only pool before a pool moves into VXLAN (tunnel-pool.ts). */
  tunnelPoolCidr?: string;
  /**
   * ipip_tunnel_pool_cidr: pre-allocate IPIP tunnel addresses from a Tunnel-only pool before a pool moves into IPIP,
   * on Calico >= 3.31 with Felix programming the routes (cluster-routes.ts).
   */
  ipipTunnelPoolCidr?: string;
  /** Networks the tunnel pool must not overlap besides the pools: Kubespray's kube_pods_subnet and kube_service_addresses. */
  clusterCidrs?: { variable: string; cidr: string }[];
}
