// The Tunnel-only VXLAN pool calico_encap_migrate creates with tunnel_pool_cidr, before it moves a pool into VXLAN
// (reference/real-calico-node.md, "Pre-allocated VTEPs"). allocate-tunnel-addrs gives a node its VXLAN tunnel
// address from any enabled IPv4 pool with vxlanMode on, allowedUses including Tunnel and a nodeSelector that
// selects the node, and keeps it while such a pool exists; Felix routes a VXLAN block through a remote VTEP whatever
// pool the VTEP's address came from. So with this pool every node has its VTEP before the main pool switches, and
// keeps it across the switch: Felix does not restart for a new VXLAN address in the switch's window. The pool
// stays afterwards: deleting it would move every VTEP again.
//
// Its twin for the way out of VXLAN on Calico >= 3.31 (cluster-routes.ts): with ipip_tunnel_pool_cidr, a Tunnel-only
// IPIP pool gives every node its IPIP tunnel address before the main pool turns IPIP on, so Felix has tunl0 up and
// programs every IPIP route in one RouteReplace at the switch. Pure.

import { cidrsOverlap, containsAddress, parseCidr } from "./cidr.js";
import type { EncapMode, Pool } from "./model.js";
import { isOn } from "./model.js";
import type { NodeObservation, Target, TargetPool } from "./observation.js";
import { turnsOn } from "./pool-switch.js";

/**
 * What an IPIP -> VXLAN switch costs in traffic, as measured on the lab's real calico-node (test/bench/FIGURES.md),
 * and what tunnel_pool_cidr changes. The check's hints and the migration's warning say it in these words.
 */
export const IN_PLACE_WINDOW =
  "an in-place IPIP -> VXLAN switch leaves a window with no route between the pool write and the last node's VTEP (every node's Felix restarts for its new VXLAN address: 3.4-3.8 s on the lab's real calico-node); with tunnel_pool_cidr every VTEP is allocated from a Tunnel-only pool beforehand and the window shrinks to BIRD's withdrawal racing Felix's routes at the pool write";

/** What the check's migration hint says when a pool moves into VXLAN. */
export function tunnelPoolAdvice(pool: string): string {
  return `IPPool ${pool} moves into VXLAN: add tunnel_pool_cidr (calico_encap_tunnel_pool_cidr in the role), an IPv4 network with an address per node that no pool, kube_pods_subnet, kube_service_addresses or node uses; ${IN_PLACE_WINDOW}.`;
}

/** The encapsulation a tunnel pool gives its addresses for. */
export type TunnelEncap = "vxlan" | "ipip";

/** Each tunnel pool's option (calico_encap_migrate's, the role's calico_encap_<option>) and its modes. */
export const TUNNEL_POOL: Record<
  TunnelEncap,
  { option: string; ipipMode: EncapMode; vxlanMode: EncapMode; anAddress: string }
> = {
  vxlan: {
    option: "tunnel_pool_cidr",
    ipipMode: "Never",
    vxlanMode: "Always",
    anAddress: "a VTEP",
  },
  ipip: {
    option: "ipip_tunnel_pool_cidr",
    ipipMode: "Always",
    vxlanMode: "Never",
    anAddress: "an IPIP tunnel address",
  },
};

/** The tunnel pool's name for a pool: "default-pool" -> "default-pool-vxlan-tunnel" (or "-ipip-tunnel"). */
export function tunnelPoolName(pool: string, encap: TunnelEncap = "vxlan"): string {
  return `${pool}-${encap}-tunnel`;
}

/** The CIDR the target gives a tunnel pool, if any. */
export function tunnelPoolCidrOf(target: Target, encap: TunnelEncap): string | undefined {
  return encap === "vxlan" ? target.tunnelPoolCidr : target.ipipTunnelPoolCidr;
}

/**
 * A pool only tunnel addresses come from (allowedUses without Workload): it carries no pod's traffic. Unset
 * allowedUses (an inventory's pool) is Calico's default, Workload and Tunnel.
 */
export function isTunnelOnly(pool: { allowedUses?: readonly string[] }): boolean {
  return pool.allowedUses !== undefined && !pool.allowedUses.includes("Workload");
}

/** The pools pods get addresses from: the ones whose traffic needs a route. */
export function workloadPools<P extends Pool>(pools: readonly P[]): P[] {
  return pools.filter((p) => !isTunnelOnly(p));
}

/** Addresses kept free beyond one per node, for nodes that join while the pool exists. */
export function tunnelPoolHeadroom(nodes: number): number {
  return Math.max(2, Math.ceil(nodes / 10));
}

/** The tunnel pool calico_encap_migrate creates (blockSize 32: one address per node, no block wasted). */
export function tunnelPool(
  name: string,
  cidr: string,
  nodeSelector: string,
  encap: TunnelEncap = "vxlan",
): Pool {
  return {
    name,
    cidr,
    ipVersion: 4,
    blockSize: 32,
    ipipMode: TUNNEL_POOL[encap].ipipMode,
    vxlanMode: TUNNEL_POOL[encap].vxlanMode,
    natOutgoing: false,
    disabled: false,
    nodeSelector,
    allowedUses: ["Tunnel"],
  };
}

/** Its IPPool manifest, with disableBGPExport: BIRD advertises none of its /32 blocks. */
export function tunnelPoolManifest(
  name: string,
  cidr: string,
  nodeSelector: string,
  encap: TunnelEncap = "vxlan",
): object {
  const p = tunnelPool(name, cidr, nodeSelector, encap);
  return {
    apiVersion: "projectcalico.org/v3",
    kind: "IPPool",
    metadata: { name },
    spec: {
      cidr: p.cidr,
      blockSize: p.blockSize,
      ipipMode: p.ipipMode,
      vxlanMode: p.vxlanMode,
      natOutgoing: p.natOutgoing,
      disableBGPExport: true,
      allowedUses: p.allowedUses,
      nodeSelector: p.nodeSelector,
    },
  };
}

/**
 * The one IPv4 workload pool that enters the encapsulation (its mode turns on: pool-switch.ts), with its target,
 * when a tunnel pool applies; else null. `count`: how many such pools there are.
 */
export function poolEntering(
  pools: readonly Pool[],
  target: Target["pools"],
  encap: TunnelEncap,
): { pool: Pool; to: TargetPool; count: number } | null {
  const entering = workloadPools(pools).flatMap((p) => {
    const to = target.find((x) => x.name === p.name);
    return p.ipVersion === 4 && to !== undefined && turnsOn(p, to, encap) ? [{ pool: p, to }] : [];
  });
  const first = entering[0];
  return first ? { ...first, count: entering.length } : null;
}

/** The tunnel pool this migration creates before its pool moves into the encapsulation: null without its option,
 * when no pool moves into it, or when the pool exists already. */
export function tunnelPoolToCreate(
  pools: readonly Pool[],
  target: Target,
  encap: TunnelEncap = "vxlan",
): Pool | null {
  const cidr = tunnelPoolCidrOf(target, encap);
  if (cidr === undefined) return null;
  const entering = poolEntering(pools, target.pools, encap);
  if (!entering) return null;
  const name = tunnelPoolName(entering.pool.name, encap);
  if (pools.some((p) => p.name === name)) return null;
  return tunnelPool(name, cidr, entering.pool.nodeSelector, encap);
}

/**
 * The warning of a migration that moves a pool into VXLAN in place (without tunnel_pool_cidr), or null. No warning
 * when the pool's tunnel pool is there already (an earlier run's, enabled, Tunnel only, VXLAN) and every node's VXLAN
 * tunnel address lies in it: the VTEPs do not move at the switch, with or without the option.
 */
export function inPlaceWindowWarning(
  pools: readonly Pool[],
  target: Target,
  nodes: readonly Pick<NodeObservation, "tunnel">[] = [],
): string | null {
  if (target.tunnelPoolCidr) return null;
  const entering = poolEntering(pools, target.pools, "vxlan");
  if (!entering) return null;
  const tunnel = pools.find(
    (p) =>
      p.name === tunnelPoolName(entering.pool.name) &&
      isTunnelOnly(p) &&
      !p.disabled &&
      isOn(p.vxlanMode),
  );
  const vtepsInIt =
    tunnel !== undefined &&
    nodes.length > 0 &&
    nodes.every((n) => n.tunnel.vxlan && containsAddress(tunnel.cidr, n.tunnel.vxlan));
  return vtepsInIt
    ? null
    : `IPPool ${entering.pool.name} moves into VXLAN without tunnel_pool_cidr, and ${IN_PLACE_WINDOW}.`;
}

/**
 * What is wrong with the value of tunnel_pool_cidr itself, whatever the cluster, or null: checked before the cluster
 * is read. It must be an IPv4 network as Go's net.ParseCIDR reads it (no leading zero, no blank).
 */
export function tunnelPoolCidrProblem(cidr: string, encap: TunnelEncap = "vxlan"): string | null {
  const option = TUNNEL_POOL[encap].option;
  const parsed = cidr === cidr.trim() ? parseCidr(cidr) : null;
  if (!parsed)
    return `${option} '${cidr}' is not a CIDR: give an IPv4 network such as 172.30.0.0/24.`;
  if (parsed.version !== 4)
    return encap === "vxlan"
      ? `${option} ${cidr} is IPv6: Calico's pre-allocated VTEPs serve IPv4 pools (allocate-tunnel-addrs takes an IPv4 node's VXLAN address from an IPv4 pool); give an IPv4 network.`
      : `${option} ${cidr} is IPv6: IPIP tunnel addresses are IPv4 (Calico has no IPIP for IPv6); give an IPv4 network.`;
  return null;
}

/**
 * Why a tunnel pool's CIDR (tunnel_pool_cidr, ipip_tunnel_pool_cidr) cannot serve this migration, or null. Checked
 * before any write: the CIDR must be IPv4, overlap no other pool nor the other tunnel pool's CIDR, neither
 * kube_pods_subnet nor kube_service_addresses, contain no node's own address nor overlap any node's subnet, and hold
 * one address per node plus headroom; a pool already named like the tunnel pool must be one (Tunnel only, the
 * encapsulation Always, the same CIDR).
 */
export function tunnelPoolRefusal(
  cidr: string,
  pools: readonly Pool[],
  target: Target,
  nodeList: readonly Pick<NodeObservation, "name" | "addresses" | "subnets">[],
  encap: TunnelEncap = "vxlan",
): string | null {
  const { option } = TUNNEL_POOL[encap];
  const nodes = nodeList.length;
  const malformed = tunnelPoolCidrProblem(cidr, encap);
  if (malformed) return malformed;
  const parsed = parseCidr(cidr);
  if (!parsed) return null;
  const entering = poolEntering(pools, target.pools, encap);
  if (!entering) return null;
  const into = encap === "vxlan" ? "VXLAN" : "IPIP";
  if (entering.count > 1)
    return `${option} serves one pool, but ${entering.count} IPv4 pools would move into ${into}: migrate them one run at a time.`;
  const name = tunnelPoolName(entering.pool.name, encap);
  const mode = encap === "vxlan" ? "vxlanMode" : "ipipMode";
  const existing = pools.find((p) => p.name === name);
  if (existing) {
    const fits =
      isTunnelOnly(existing) &&
      existing[mode] === "Always" &&
      !existing.disabled &&
      cidrsOverlap(existing.cidr, cidr) &&
      parseCidr(existing.cidr)?.prefix === parsed.prefix;
    return fits
      ? null
      : `IPPool ${name} exists but is not the tunnel pool for ${option} ${cidr} (it has cidr ${existing.cidr}, ${mode} ${existing[mode]}, allowedUses ${existing.allowedUses.join(",")}${existing.disabled ? ", disabled" : ""}): delete or rename it, or give its CIDR.`;
  }
  const overlapping = pools
    .filter((p) => cidrsOverlap(p.cidr, cidr))
    .map((p) => `${p.name} (${p.cidr})`);
  if (overlapping.length)
    return `${option} ${cidr} overlaps IPPool ${overlapping.join(", ")}: give a network no pool uses.`;
  const other: TunnelEncap = encap === "vxlan" ? "ipip" : "vxlan";
  const otherCidr = tunnelPoolCidrOf(target, other);
  if (otherCidr !== undefined && parseCidr(otherCidr) && cidrsOverlap(otherCidr, cidr))
    return `${option} ${cidr} overlaps ${TUNNEL_POOL[other].option} ${otherCidr}: give the two tunnel pools networks of their own.`;
  const cluster = (target.clusterCidrs ?? []).filter((c) => cidrsOverlap(c.cidr, cidr));
  if (cluster.length)
    return `${option} ${cidr} overlaps ${cluster.map((c) => `${c.variable} ${c.cidr}`).join(" and ")}: give a network the cluster does not use.`;
  const hosts = nodeList.flatMap((n) =>
    (n.addresses ?? []).filter((a) => containsAddress(cidr, a)).map((a) => `${n.name} (${a})`),
  );
  if (hosts.length)
    return `${option} ${cidr} contains the address of node ${hosts.join(", ")}: give a network no node uses.`;
  // A tunnel address inside a node's subnet could take an address on it (its gateway's, say): the node would then
  // deliver its traffic to that address locally and fall off the network.
  const subnets = nodeList.flatMap((n) =>
    (n.subnets ?? []).filter((s) => cidrsOverlap(s, cidr)).map((s) => `${n.name} (${s})`),
  );
  if (subnets.length)
    return `${option} ${cidr} overlaps the subnet of node ${subnets.join(", ")}: ${TUNNEL_POOL[encap].anAddress} from it could take an address of that subnet, such as its gateway's, and cut the node off; give a network no node's subnet uses.`;
  const size = 2 ** (32 - parsed.prefix);
  const needed = nodes + tunnelPoolHeadroom(nodes);
  if (size < needed)
    return `${option} ${cidr} holds ${size} addresses, but the ${nodes} nodes need one each plus ${tunnelPoolHeadroom(nodes)} spare: give a larger network (at least ${needed} addresses).`;
  return null;
}
