// Which tunnel addresses each node needs, by calico-node's allocate-tunnel-addrs rule (reference/calico.md,
// "Tunnel addresses"): pools that allow Tunnel use, select the node, are not disabled and have the mode on.

import { containsAddress } from "./cidr.js";
import type { Pool } from "./model.js";
import { isOn } from "./model.js";
import type { NodeObservation, TunnelKind } from "./observation.js";
import { parseSelector } from "./selector.js";

function poolGives(pool: Pool, kind: TunnelKind): boolean {
  if (pool.disabled || !pool.allowedUses.includes("Tunnel")) return false;
  if (kind === "ipip") return pool.ipVersion === 4 && isOn(pool.ipipMode);
  if (kind === "vxlan") return pool.ipVersion === 4 && isOn(pool.vxlanMode);
  return pool.ipVersion === 6 && isOn(pool.vxlanMode);
}

export const TUNNEL_KINDS: readonly TunnelKind[] = ["ipip", "vxlan", "vxlanV6"];

export function selects(pool: Pool, node: { labels: Record<string, string> }): boolean {
  const sel = parseSelector(pool.nodeSelector);
  // An unsupported selector counts as selecting the node: waiting on it is the safe side.
  return sel.ok ? sel.matches(node.labels) : true;
}

/** The tunnel kinds a node needs under these pools. */
export function tunnelsNeeded(
  pools: readonly Pool[],
  node: { labels: Record<string, string> },
): TunnelKind[] {
  return TUNNEL_KINDS.filter((kind) => pools.some((p) => poolGives(p, kind) && selects(p, node)));
}

/**
 * Nodes missing a tunnel address they need, as "node-2 (vxlan)", or holding one no pool that gives it contains,
 * as "node-2 (vxlan 10.0.0.7 moving)": allocate-tunnel-addrs keeps an address only while it lies in such a pool,
 * else releases it and assigns another.
 */
export function missingTunnels(
  pools: readonly Pool[],
  nodes: readonly NodeObservation[],
): string[] {
  return nodes.flatMap((n) =>
    tunnelsNeeded(pools, n).flatMap((kind) => {
      const address = n.tunnel[kind];
      if (!address) return [`${n.name} (${kind})`];
      const kept = pools.some(
        (p) => poolGives(p, kind) && selects(p, n) && containsAddress(p.cidr, address),
      );
      return kept ? [] : [`${n.name} (${kind} ${address} moving)`];
    }),
  );
}
