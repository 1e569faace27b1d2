// The contract between the calico-node stand-in (which decides what Felix and BIRD would program on each
// node) and the data plane (which programs it into the lab's network namespaces). The stand-in writes a
// DataplaneSpec; the data plane makes the namespaces match it, idempotently.

export interface DataplaneSpec {
  /** VNI and UDP port from FelixConfiguration (vxlanVNI, vxlanPort; Calico's defaults 4096 and 4789). */
  vxlan: { vni: number; port: number };
  nodes: NodeDataplane[];
}

export interface NodeDataplane {
  /** Kubernetes Node name, e.g. node-1. */
  name: string;
  /** The node's address on the lab's underlay (its InternalIP, projectcalico.org/IPv4Address without /len). */
  underlayAddress: string;
  /** Pod addresses living on this node (/32 each), which the prober sends between. */
  podAddresses: string[];
  /** The node's own pod block (CIDR), local to it. */
  block: string;
  /** vxlan.calico exists on the node only when this is set (Felix: VXLAN effectively on + a VTEP). */
  vxlanDevice: { tunnelAddress: string; mac: string } | null;
  /** Routes to remote pod blocks, as Felix (vxlan) or BIRD (bgp, standing in for IPIP over tunl0) program them. */
  routes: RouteSpec[];
}

export type RouteSpec =
  | {
      /** Felix's VXLAN route: <block> via <remote tunnel address> dev vxlan.calico onlink, plus the remote VTEP's
       *  neighbour (tunnel address -> MAC) and FDB entry (MAC -> underlay address). */
      kind: "vxlan";
      block: string;
      remoteNode: string;
      remoteTunnelAddress: string;
      remoteMac: string;
      remoteUnderlayAddress: string;
    }
  | {
      /** BIRD's route for an IPIP pool. This kernel has no ipip device, so the lab programs it as a plain route
       *  over the underlay: <block> via <remote underlay address>. It exists only while BIRD runs on both ends. */
      kind: "bgp";
      block: string;
      remoteNode: string;
      remoteUnderlayAddress: string;
    };
