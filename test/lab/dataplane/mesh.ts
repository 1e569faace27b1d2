// Hand-written specs for tests and manual runs, as the stand-in would produce them for a healthy cluster: every
// node routes to every other node's block, either over VXLAN (Felix) or as BGP routes (BIRD). Addresses follow
// lab.sh: node i at <underlay>.(10+i), block i-1 of 10.233.64.0/18 in /24s, tunnel address = the block's first
// address, VTEP MAC 66:4c:61:62:04:<i>, one pod address <block>.5.

import type { DataplaneSpec, NodeDataplane, RouteSpec } from "./spec.js";

export interface MeshOptions {
  nodes: number;
  kind: "vxlan" | "bgp";
  /** First three octets of the underlay, e.g. 172.31.250. */
  underlay?: string;
  vni?: number;
  port?: number;
}

export function meshNode(i: number, underlay = "172.31.250") {
  const block = `10.233.${63 + i}.0/24`;
  return {
    name: `node-${i}`,
    underlayAddress: `${underlay}.${10 + i}`,
    block,
    tunnelAddress: `10.233.${63 + i}.0`,
    mac: `66:4c:61:62:04:${i.toString(16).padStart(2, "0")}`,
    podAddress: `10.233.${63 + i}.5`,
  };
}

export function meshSpec(opts: MeshOptions): DataplaneSpec {
  const all = Array.from({ length: opts.nodes }, (_, k) => meshNode(k + 1, opts.underlay));
  const nodes: NodeDataplane[] = all.map((me) => ({
    name: me.name,
    underlayAddress: me.underlayAddress,
    podAddresses: [me.podAddress],
    block: me.block,
    vxlanDevice: opts.kind === "vxlan" ? { tunnelAddress: me.tunnelAddress, mac: me.mac } : null,
    routes: all
      .filter((o) => o.name !== me.name)
      .map((o): RouteSpec =>
        opts.kind === "vxlan"
          ? {
              kind: "vxlan",
              block: o.block,
              remoteNode: o.name,
              remoteTunnelAddress: o.tunnelAddress,
              remoteMac: o.mac,
              remoteUnderlayAddress: o.underlayAddress,
            }
          : {
              kind: "bgp",
              block: o.block,
              remoteNode: o.name,
              remoteUnderlayAddress: o.underlayAddress,
            },
      ),
  }));
  return { vxlan: { vni: opts.vni ?? 4096, port: opts.port ?? 4789 }, nodes };
}

/** A copy of `spec` without `from`'s route to `to`'s block. */
export function withoutRoute(spec: DataplaneSpec, from: string, to: string): DataplaneSpec {
  return {
    ...spec,
    nodes: spec.nodes.map((n) =>
      n.name === from ? { ...n, routes: n.routes.filter((r) => r.remoteNode !== to) } : n,
    ),
  };
}
