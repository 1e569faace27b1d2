// issue 41's fallback on BIRD's path, the backend's part (test/bench/FIGURES.md, "A fallback routing table through
// the pool switch on BIRD's path"): calico_encap_migrate's stop_before: pool_switch stops a run just before the write
// that switches a pool between IPIP and VXLAN, with every node's VTEP in place, and returns the routes the fallback
// tables hold meanwhile, once for the cluster: each block (its IPAM block affinity) via its Node's VXLAN tunnel address
// on vxlan.calico, onlink; each Node's table holds those of the other Nodes' blocks (issue 52: one list, not one per
// Node, so the result grows with the blocks, not with their square). Into VXLAN those are the target's routes; out of VXLAN the source's (the VTEPs stay with the
// tunnel pool). The role installs them (tasks/fallback_install.yml), with rules scoped to the pools' CIDRs
// (fallback_cidrs), and removes them. Pure.

import { containsAddress, parseCidr } from "../shared/cidr.js";
import { routesPath, switchingPool } from "../shared/cluster-routes.js";
import { isOn } from "../shared/model.js";
import { someNames } from "../shared/names.js";
import { switchedInto } from "../shared/pool-switch.js";
import type { Live } from "../shared/model.js";
import type { ClusterObservation, Target } from "../shared/observation.js";
import { isTunnelOnly, tunnelPoolCidrOf } from "../shared/tunnel-pool.js";
import type { Write } from "./plan.js";

/** The one value of calico_encap_migrate's stop_before that stops a run: before the pool's switch. */
export const STOP_BEFORE_POOL_SWITCH = "pool_switch";

/** What a run can stop before: calico_encap_migrate's stop_before when it is set. */
export type StopBefore = typeof STOP_BEFORE_POOL_SWITCH;

/**
 * stop_before's value for the collection's migrate.yml default: stop before the pool switch where pool_switch would not
 * be refused (the fallback can cover it), and elsewhere go to the end as without stop_before.
 */
export const STOP_BEFORE_ON_BIRD_PATH = "pool_switch_on_bird_path";

/** How a refusal says to run instead: as the module, and as the collection's migrate.yml, which sets stop_before. */
export const WITHOUT_STOP_BEFORE =
  "without stop_before (with the collection's migrate.yml: without calico_encap_bird_path_fallback)";

/** Felix's VXLAN device on every node: the fallback's routes go through it. */
export const FALLBACK_DEVICE = "vxlan.calico";

/** One IPAM block affinity (crd.projectcalico.org BlockAffinity spec), as kubectl prints it. */
export interface BlockAffinity {
  node: string;
  cidr: string;
  /** confirmed, pending, pendingDeletion. */
  state: string;
  deleted: boolean;
}

/**
 * One route of the fallback tables: `ip route add <dst> via <via> dev vxlan.calico onlink` on every Node but its peer.
 */
export interface FallbackRoute {
  dst: string;
  via: string;
  dev: string;
  onlink: true;
  /** The Node whose block it is (the peer). */
  peer: string;
}

/**
 * Whether a write switches a pool between IPIP and VXLAN (pool-switch.ts): the write stop_before: pool_switch stops
 * before.
 */
export function isPoolSwitch(write: Write | null): boolean {
  return write?.kind === "pool" && switchedInto(write.from, write.set) !== null;
}

/**
 * Why stop_before: pool_switch does not apply to this migration, or null (also when no pool switches: the run then
 * has nothing to stop before). It is for BIRD's path only, and needs every node's VTEP through the switch: a VXLAN
 * tunnel pool, given (tunnel_pool_cidr, into VXLAN) or there already (out of VXLAN, kept since the way in).
 */
export function stopBeforeRefusal(
  live: Pick<Live, "calicoVersion" | "pools">,
  target: Target,
  datastore: string,
): string | null {
  return fallbackObstacle(live, target, datastore)?.reason ?? null;
}

/**
 * What pool_switch_on_bird_path makes of a run: the stop pool_switch would make where a pool switches and nothing
 * stands against the fallback, else none; and where the switch then takes BIRD's path without the fallback, a warning that says why (none on Felix's
 * path, where there is no gap, and none into VXLAN without tunnel_pool_cidr, which the in-place warning names).
 */
export function stopOnBirdPath(
  live: Pick<Live, "calicoVersion" | "pools">,
  target: Target,
  datastore: string,
): { stop: StopBefore | null; warning: string | null } {
  if (!switchingPool(live.pools, target)) return { stop: null, warning: null };
  const obstacle = fallbackObstacle(live, target, datastore);
  if (!obstacle) return { stop: STOP_BEFORE_POOL_SWITCH, warning: null };
  return {
    stop: null,
    warning:
      obstacle.felix || obstacle.inPlace
        ? null
        : `The BIRD-path fallback (stop_before: ${STOP_BEFORE_ON_BIRD_PATH}) cannot cover this pool switch, which goes on without it, BIRD's path with its gap: ${obstacle.reason}`,
  };
}

/**
 * Why the fallback cannot cover this migration's pool switch (stop_before: pool_switch's refusal), with whether the
 * switch takes Felix's path and whether it is an in-place switch into VXLAN; null when it can, or no pool switches.
 */
function fallbackObstacle(
  live: Pick<Live, "calicoVersion" | "pools">,
  target: Target,
  datastore: string,
): { reason: string; felix: boolean; inPlace: boolean } | null {
  const switching = switchingPool(live.pools, target);
  if (!switching) return null;
  const path = routesPath(live, target);
  const because = (reason: string, more: { felix?: boolean; inPlace?: boolean } = {}) => ({
    reason,
    felix: more.felix ?? false,
    inPlace: more.inPlace ?? false,
  });
  if (path.felix)
    return because(
      `stop_before: ${STOP_BEFORE_POOL_SWITCH} is for BIRD's path, and this migration takes Felix's (${path.why}): Felix replaces each block's route in one write, so there is no gap for a fallback to cover. Migrate ${WITHOUT_STOP_BEFORE}.`,
      { felix: true },
    );
  const tunnelPool =
    (switching.encap === "vxlan" && tunnelPoolCidrOf(target, "vxlan") !== undefined) ||
    live.pools.some(
      (p) => p.ipVersion === 4 && !p.disabled && isTunnelOnly(p) && isOn(p.vxlanMode),
    );
  if (!tunnelPool)
    return switching.encap === "vxlan"
      ? because(
          `stop_before: ${STOP_BEFORE_POOL_SWITCH} needs every node's VTEP before IPPool ${switching.pool.name} switches into VXLAN (the fallback routes go through them): add tunnel_pool_cidr.`,
          { inPlace: true },
        )
      : because(
          `stop_before: ${STOP_BEFORE_POOL_SWITCH} needs every node's VTEP through IPPool ${switching.pool.name}'s switch out of VXLAN (the fallback keeps the VXLAN routes through them), which only a Tunnel-only VXLAN pool keeps, and the cluster has none: migrate into VXLAN with tunnel_pool_cidr first, or migrate ${WITHOUT_STOP_BEFORE}.`,
        );
  if (datastore !== "kdd")
    return because(
      `stop_before: ${STOP_BEFORE_POOL_SWITCH} reads the IPAM block affinities with kubectl (blockaffinities.crd.projectcalico.org), which the ${datastore} datastore does not keep: it works with calico_datastore kdd only. Migrate ${WITHOUT_STOP_BEFORE}.`,
    );
  return null;
}

/**
 * Whether the fallback's routes are known before the first write: out of VXLAN every node's VTEP is there from the
 * start (the tunnel pool keeps them through the steps before the switch), so the routes, or why there can be none,
 * come before any write; into VXLAN the tunnel pool's step makes them.
 */
export function routesKnownAtStart(live: Pick<Live, "pools">, target: Target): boolean {
  return switchingPool(live.pools, target)?.encap === "ipip";
}

/**
 * The pools whose blocks the fallback routes: the target's IPv4 pools. Their CIDRs scope the fallback's rules
 * (fallback_cidrs), so that a host's own policy rules keep every other destination.
 */
function routedPools(live: Pick<Live, "pools">, target: Target): string[] {
  return live.pools
    .filter((p) => p.ipVersion === 4 && target.pools.some((t) => t.name === p.name))
    .map((p) => p.cidr);
}

/**
 * The fallback's routes, once for the cluster: every confirmed block affinity of a Node in one of the target's IPv4
 * pools, via that Node's VXLAN tunnel address; each Node's table holds those whose peer is another Node. `nodes`: every
 * Node, the names the hosts' fallbacks are for. Refused (a reason) when a Node with such a block has no VXLAN tunnel
 * address, or one outside a Tunnel-only VXLAN pool.
 */
export function fallbackRoutes(
  obs: ClusterObservation,
  affinities: readonly BlockAffinity[],
  target: Target,
):
  | { ok: true; routes: FallbackRoute[]; nodes: string[]; cidrs: string[] }
  | { ok: false; reason: string } {
  const pools = routedPools(obs.live, target);
  // One look-up per block affinity, not a scan of every Node (issue 40: a thousand Nodes, a block or more each).
  const vtepOf = new Map(obs.nodes.map((n) => [n.name, n.tunnel.vxlan] as const));
  const blocks = affinities
    .filter((a) => a.state === "confirmed" && !a.deleted && parseCidr(a.cidr)?.version === 4)
    .filter((a) => pools.some((cidr) => containsAddress(cidr, a.cidr.split("/")[0] ?? "")))
    .filter((a) => vtepOf.has(a.node));
  const noVtep = [...new Set(blocks.filter((a) => !vtepOf.get(a.node)).map((a) => a.node))].sort();
  if (noVtep.length)
    return {
      ok: false,
      reason: `Node(s) ${someNames(noVtep)} hold blocks of ${pools.join(", ")} but have no VXLAN tunnel address (projectcalico.org/IPv4VXLANTunnelAddr), so the fallback has no VTEP to route their blocks through. Expected every node's VTEP from the VXLAN tunnel pool before the switch: check that calico-node runs there and the tunnel pool selects it, then run again.`,
    };
  // A VTEP outside a Tunnel-only VXLAN pool comes from a pool the switch takes out of VXLAN: it is released there, in
  // the very gap the fallback's routes through it are for.
  const tunnelPools = obs.live.pools
    .filter((p) => p.ipVersion === 4 && !p.disabled && isTunnelOnly(p) && isOn(p.vxlanMode))
    .map((p) => p.cidr);
  const outside = [...new Set(blocks.map((a) => a.node))]
    .filter((n) => !tunnelPools.some((cidr) => containsAddress(cidr, vtepOf.get(n) ?? "")))
    .sort();
  if (outside.length)
    return {
      ok: false,
      reason: `The VXLAN tunnel address of Node(s) ${someNames(outside.map((n) => `${n} (${vtepOf.get(n) ?? ""})`))} is in no Tunnel-only VXLAN pool (${tunnelPools.length ? tunnelPools.join(", ") : "the cluster has none"}): it comes from a pool that leaves VXLAN at the switch and goes with it, in the gap the fallback's routes through it are for. Expected every node's VTEP in the tunnel pool: migrate into VXLAN with tunnel_pool_cidr first (its VTEPs come from that pool), or migrate ${WITHOUT_STOP_BEFORE}.`,
    };
  const routes = blocks
    .map((a) => ({
      dst: a.cidr,
      via: vtepOf.get(a.node) ?? "",
      dev: FALLBACK_DEVICE,
      onlink: true as const,
      peer: a.node,
    }))
    .sort((a, b) => a.dst.localeCompare(b.dst, "en", { numeric: true }));
  const nodes = obs.nodes.map((n) => n.name).sort((a, b) => a.localeCompare(b));
  return { ok: true, routes, nodes, cidrs: pools };
}

/** The write each value of stop_before stops before. */
const STOPS: Record<StopBefore, (w: Write | null) => boolean> = {
  [STOP_BEFORE_POOL_SWITCH]: isPoolSwitch,
};

/**
 * Which step a run stops before, decided here alone: the plan up to the first step whose write `stopBefore` names,
 * and that step; the whole plan when there is none (or no stop_before). Check mode answers from it on the plan of
 * the cluster as it is (calico_encap_migrate.ts), and the executor asks it of every plan it makes and stops once
 * that step is the next to write (drive.ts), so the two cannot disagree on the same plan.
 */
export function planUntil<S extends { write: Write | null }>(
  steps: readonly S[],
  stopBefore: StopBefore | null,
): { steps: S[]; stoppedBefore?: S } {
  const stops = stopBefore ? STOPS[stopBefore] : null;
  const at = stops ? steps.findIndex((s) => stops(s.write)) : -1;
  const stop = steps[at];
  return at < 0 || !stop
    ? { steps: [...steps] }
    : { steps: steps.slice(0, at), stoppedBefore: stop };
}
