// The Tunnel-only VXLAN pool calico_encap_migrate creates with tunnel_pool_cidr, before it moves a pool into VXLAN
// (reference/real-calico-node.md, "Pre-allocated VTEPs"). allocate-tunnel-addrs gives a node its VXLAN tunnel
// address from any enabled IPv4 pool with vxlanMode on, allowedUses including Tunnel and a nodeSelector that
// selects the node, and keeps it while such a pool exists; Felix routes a VXLAN block through a remote VTEP whatever
// pool the VTEP's address came from. So with this pool every node has its VTEP before the main pool switches, and
// keeps it across the switch: Felix does not restart for a new VXLAN address in the switch's window. The pool
// stays afterwards: deleting it would move every VTEP again. Pure.

import { cidrsOverlap, containsAddress, parseCidr } from "./cidr.js";
import type { Pool } from "./model.js";
import { isOn } from "./model.js";
import type { NodeObservation, Target } from "./observation.js";

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

/** The tunnel pool's name for a pool: "default-pool" -> "default-pool-vxlan-tunnel". */
export function tunnelPoolName(pool: string): string {
  return `${pool}-vxlan-tunnel`;
}

/** A pool only tunnel addresses come from (allowedUses without Workload): it carries no pod's traffic. */
export function isTunnelOnly(pool: Pool): boolean {
  return !pool.allowedUses.includes("Workload");
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
export function tunnelPool(name: string, cidr: string, nodeSelector: string): Pool {
  return {
    name,
    cidr,
    ipVersion: 4,
    blockSize: 32,
    ipipMode: "Never",
    vxlanMode: "Always",
    natOutgoing: false,
    disabled: false,
    nodeSelector,
    allowedUses: ["Tunnel"],
  };
}

/** Its IPPool manifest, with disableBGPExport: BIRD advertises none of its /32 blocks. */
export function tunnelPoolManifest(name: string, cidr: string, nodeSelector: string): object {
  const p = tunnelPool(name, cidr, nodeSelector);
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

/** The one IPv4 pool that moves into VXLAN (its vxlanMode turns on), when the tunnel pool applies; else null. */
export function poolEnteringVxlan(
  pools: readonly Pool[],
  target: Target["pools"],
): { pool: Pool; count: number } | null {
  const entering = pools.filter((p) => {
    const t = target.find((x) => x.name === p.name);
    return p.ipVersion === 4 && t !== undefined && !isOn(p.vxlanMode) && isOn(t.vxlanMode);
  });
  const first = entering[0];
  return first ? { pool: first, count: entering.length } : null;
}

/** The tunnel pool this migration creates before its pool moves into VXLAN: null without tunnel_pool_cidr, when no
 * pool moves into VXLAN, or when the pool exists already. */
export function tunnelPoolToCreate(pools: readonly Pool[], target: Target): Pool | null {
  if (target.tunnelPoolCidr === undefined) return null;
  const entering = poolEnteringVxlan(pools, target.pools);
  if (!entering) return null;
  const name = tunnelPoolName(entering.pool.name);
  if (pools.some((p) => p.name === name)) return null;
  return tunnelPool(name, target.tunnelPoolCidr, entering.pool.nodeSelector);
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
  const entering = poolEnteringVxlan(pools, target.pools);
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
export function tunnelPoolCidrProblem(cidr: string): string | null {
  const parsed = cidr === cidr.trim() ? parseCidr(cidr) : null;
  if (!parsed)
    return `tunnel_pool_cidr '${cidr}' is not a CIDR: give an IPv4 network such as 172.30.0.0/24.`;
  if (parsed.version !== 4)
    return `tunnel_pool_cidr ${cidr} is IPv6: Calico's pre-allocated VTEPs serve IPv4 pools (allocate-tunnel-addrs takes an IPv4 node's VXLAN address from an IPv4 pool); give an IPv4 network.`;
  return null;
}

/**
 * Why tunnel_pool_cidr cannot serve this migration, or null. Checked before any write: the CIDR must be IPv4,
 * overlap no other pool, neither kube_pods_subnet nor kube_service_addresses, contain no node's own address nor
 * overlap any node's subnet, and
 * hold one address per node plus headroom; a pool already named like the tunnel pool must be one (Tunnel only,
 * VXLAN Always, the same CIDR).
 */
export function tunnelPoolRefusal(
  cidr: string,
  pools: readonly Pool[],
  target: Target,
  nodeList: readonly Pick<NodeObservation, "name" | "addresses" | "subnets">[],
): string | null {
  const nodes = nodeList.length;
  const malformed = tunnelPoolCidrProblem(cidr);
  if (malformed) return malformed;
  const parsed = parseCidr(cidr);
  if (!parsed) return null;
  const entering = poolEnteringVxlan(pools, target.pools);
  if (!entering) return null;
  if (entering.count > 1)
    return `tunnel_pool_cidr serves one pool, but ${entering.count} IPv4 pools would move into VXLAN: migrate them one run at a time.`;
  const name = tunnelPoolName(entering.pool.name);
  const existing = pools.find((p) => p.name === name);
  if (existing) {
    const fits =
      isTunnelOnly(existing) &&
      existing.vxlanMode === "Always" &&
      !existing.disabled &&
      cidrsOverlap(existing.cidr, cidr) &&
      parseCidr(existing.cidr)?.prefix === parsed.prefix;
    return fits
      ? null
      : `IPPool ${name} exists but is not the tunnel pool for tunnel_pool_cidr ${cidr} (it has cidr ${existing.cidr}, vxlanMode ${existing.vxlanMode}, allowedUses ${existing.allowedUses.join(",")}${existing.disabled ? ", disabled" : ""}): delete or rename it, or give its CIDR.`;
  }
  const overlapping = pools
    .filter((p) => cidrsOverlap(p.cidr, cidr))
    .map((p) => `${p.name} (${p.cidr})`);
  if (overlapping.length)
    return `tunnel_pool_cidr ${cidr} overlaps IPPool ${overlapping.join(", ")}: give a network no pool uses.`;
  const cluster = (target.clusterCidrs ?? []).filter((c) => cidrsOverlap(c.cidr, cidr));
  if (cluster.length)
    return `tunnel_pool_cidr ${cidr} overlaps ${cluster.map((c) => `${c.variable} ${c.cidr}`).join(" and ")}: give a network the cluster does not use.`;
  const hosts = nodeList.flatMap((n) =>
    (n.addresses ?? []).filter((a) => containsAddress(cidr, a)).map((a) => `${n.name} (${a})`),
  );
  if (hosts.length)
    return `tunnel_pool_cidr ${cidr} contains the address of node ${hosts.join(", ")}: give a network no node uses.`;
  // A VTEP inside a node's subnet could take an address on it (its gateway's, say): the node would then deliver
  // its traffic to that address locally and fall off the network.
  const subnets = nodeList.flatMap((n) =>
    (n.subnets ?? []).filter((s) => cidrsOverlap(s, cidr)).map((s) => `${n.name} (${s})`),
  );
  if (subnets.length)
    return `tunnel_pool_cidr ${cidr} overlaps the subnet of node ${subnets.join(", ")}: a VTEP from it could take an address of that subnet, such as its gateway's, and cut the node off; give a network no node's subnet uses.`;
  const size = 2 ** (32 - parsed.prefix);
  const needed = nodes + tunnelPoolHeadroom(nodes);
  if (size < needed)
    return `tunnel_pool_cidr ${cidr} holds ${size} addresses, but the ${nodes} nodes need one each plus ${tunnelPoolHeadroom(nodes)} spare: give a larger network (at least ${needed} addresses).`;
  return null;
}
