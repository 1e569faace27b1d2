// <LAB_STATE>/kubelet/status.json: what the lab's kubelet runs on each data-plane node, and the prober's pods.

import type { ServiceState } from "./pod-run.js";

export interface NodeStatus {
  pod: string | null;
  podPhase: "init" | "running" | "stopped" | "crashed" | null;
  podReady: boolean;
  /** CALICO_NETWORKING_BACKEND as the running pod resolved it at start. */
  backend: string | null;
  restartCount: number;
  services: ServiceState[];
  birdRunning: boolean;
  felixRunning: boolean;
  /** Felix restarts within this pod (runit restarts Felix when it exits, e.g. 129 on an encapsulation change). */
  felixRestarts: number;
  readiness: { ok: boolean; output: string } | null;
  ipipTunnelAddr: string | null;
  vxlanTunnelAddr: string | null;
  vxlanTunnelMac: string | null;
  ipv6VxlanTunnelAddr: string | null;
  /** vxlan.calico exists in the node's namespace (Felix made it). */
  vxlanDevice: boolean;
  /** Routes in the node's main table: through vxlan.calico (Felix), and proto bird (BIRD). */
  routes: { vxlan: number; bgp: number };
}

export interface ProbePod {
  name: string;
  node: string;
  /** The pod's network namespace (made for the CNI plugin, as a container runtime makes a sandbox's). */
  netns: string;
  nodeNetns: string;
  podIP: string | null;
  /** The pod's IPv6 address (dual-stack: the conflist assigns IPv6 too), else null. */
  podIP6: string | null;
  hostIP: string | null;
  /** The node's IPv6 InternalIP (dual-stack profile), else null. */
  hostIP6: string | null;
  error: string | null;
}

/** What the tests read of either the lab kubelet's or the stand-in's status: counts over the nodes. */
export interface NodesSummary {
  nodes: number;
  pods: number;
  podsReady: number;
  birdRunning: number;
  vxlanDevices: number;
  ipipTunnelAddrs: number;
  vxlanTunnelAddrs: number;
}

export interface KubeletStatus {
  kind: "lab-kubelet";
  summary: NodesSummary;
  nodes: Record<string, NodeStatus>;
  probePods: ProbePod[];
  warnings: string[];
}
