// A check the executor makes after a pool's switch into VXLAN: with the tunnel pool in place beforehand, no node's
// VXLAN tunnel address moved across it (tunnel-pool.ts says why that matters). Pure.

import type { ClusterObservation } from "../shared/observation.js";
import { encapEntered } from "../shared/pool-switch.js";
import type { Write } from "./plan.js";
import { isTunnelOnly, tunnelPoolName } from "../shared/tunnel-pool.js";

/**
 * What the switch of a pool into VXLAN (or, on Felix's path, into IPIP) relies on, checked after it: with the tunnel
 * pool in place beforehand, no node's tunnel address of that encapsulation changes across it. A node whose address
 * changed anyway had its Felix restarted at the switch, the window the tunnel pool is there to avoid; null when none
 * changed or the write is another.
 */
export function vtepsMovedAtSwitch(
  write: Write | null,
  before: ClusterObservation,
  after: ClusterObservation,
): string | null {
  if (write?.kind !== "pool") return null;
  // Any pool that enters the encapsulation, a switch or not (pool-switch.ts): its tunnel pool serves both.
  const encap = encapEntered(write.from, write.set);
  if (encap === null) return null;
  const tunnel = before.live.pools.find(
    (p) => p.name === tunnelPoolName(write.pool, encap) && isTunnelOnly(p),
  );
  if (!tunnel) return null;
  const moved = before.nodes.flatMap((b) => {
    const a = after.nodes.find((n) => n.name === b.name);
    const was = b.tunnel[encap];
    const is = a?.tunnel[encap];
    return a && was && is !== was ? [`${b.name} (${was} -> ${is ?? "none"})`] : [];
  });
  return moved.length
    ? `The ${encap === "vxlan" ? "VXLAN" : "IPIP"} tunnel address of ${moved.join(", ")} changed across the switch of IPPool ${write.pool}, though it came from IPPool ${tunnel.name} beforehand: Felix restarted there and its traffic may have had no route for a moment. Check that ${tunnel.name} is enabled and selects every node (calicoctl get ippool ${tunnel.name} -o yaml).`
    : null;
}
