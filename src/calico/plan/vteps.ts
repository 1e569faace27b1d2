// A check the executor makes after a pool's switch into VXLAN: with the tunnel pool in place beforehand, no node's
// VXLAN tunnel address moved across it (tunnel-pool.ts says why that matters). Pure.

import { isOn } from "../shared/model.js";
import type { ClusterObservation } from "../shared/observation.js";
import type { Write } from "./plan.js";
import { isTunnelOnly, tunnelPoolName } from "../shared/tunnel-pool.js";

/**
 * What the switch of a pool into VXLAN relies on, checked after it: with the tunnel pool in place beforehand, no
 * node's VXLAN tunnel address (VTEP) changes across it. A node whose VTEP changed anyway had its Felix restarted
 * at the switch, the window tunnel_pool_cidr is there to avoid; null when none changed or the write is another.
 */
export function vtepsMovedAtSwitch(
  write: Write | null,
  before: ClusterObservation,
  after: ClusterObservation,
): string | null {
  if (write?.kind !== "pool" || isOn(write.from.vxlanMode) || !isOn(write.set.vxlanMode))
    return null;
  const tunnel = before.live.pools.find(
    (p) => p.name === tunnelPoolName(write.pool) && isTunnelOnly(p),
  );
  if (!tunnel) return null;
  const moved = before.nodes.flatMap((b) => {
    const a = after.nodes.find((n) => n.name === b.name);
    return a && b.tunnel.vxlan && a.tunnel.vxlan !== b.tunnel.vxlan
      ? [`${b.name} (${b.tunnel.vxlan} -> ${a.tunnel.vxlan ?? "none"})`]
      : [];
  });
  return moved.length
    ? `The VXLAN tunnel address of ${moved.join(", ")} changed across the switch of IPPool ${write.pool}, though it came from IPPool ${tunnel.name} beforehand: Felix restarted there and its traffic may have had no route for a moment. Check that ${tunnel.name} is enabled and selects every node (calicoctl get ippool ${tunnel.name} -o yaml).`
    : null;
}
