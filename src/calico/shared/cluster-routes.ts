// Who programs the IPIP routes through a switch between IPIP and VXLAN: BIRD, or Felix with FelixConfiguration
// programClusterRoutes (Calico >= 3.31; ../shared/reference/felix-owned-routes.md). With both agents on a node,
// each pool write races them: into VXLAN BIRD withdraws its routes while Felix adds its own, out of VXLAN BIRD cannot
// add over Felix's route and tries again only at its 2 s kernel scan. With programClusterRoutes Enabled, Felix
// programs the IPIP routes too (via the peer on tunl0, protocol 80) and replaces each block's route in one
// RouteReplace when its pool changes type; BIRD's adds fail ("File exists") and its deletes do not match Felix's
// protocol. The one answer the planner, the check and the result share. Pure.

import type { FelixFlags, Live } from "./model.js";
import { isOn } from "./model.js";
import type { Target } from "./observation.js";
import { calicoAtLeast } from "./rules.js";
import type { TunnelEncap } from "./tunnel-pool.js";
import { TUNNEL_POOL, poolEntering, tunnelPoolCidrOf, tunnelPoolName } from "./tunnel-pool.js";

/** The first Calico release whose FelixConfiguration has programClusterRoutes. */
export const CLUSTER_ROUTES_SINCE = "v3.31";

/** Whether this Calico's Felix can program the IPIP routes (programClusterRoutes); an unknown version cannot. */
export function hasClusterRoutes(calicoVersion: string | null): boolean {
  return calicoAtLeast(calicoVersion, 3, 31, false);
}

/** Whether FelixConfiguration default has Felix program the IPIP routes (unset is Disabled). */
export function clusterRoutesEnabled(felixDefault: FelixFlags | null): boolean {
  return felixDefault?.programClusterRoutes === "Enabled";
}

export interface RoutesPath {
  /** true: Felix programs the IPIP routes through the switch (programClusterRoutes Enabled first). */
  felix: boolean;
  /** The direction whose tunnel pool the path creates, when Felix owns the routes. */
  encap?: TunnelEncap;
  /** Which agent, and why, in the result's words. */
  why: string;
}

/** The pool that switches between IPIP and VXLAN, and the encapsulation it moves into; null when none does. */
function switchingPool(
  pools: Live["pools"],
  target: Target,
): { pool: Live["pools"][number]; encap: TunnelEncap } | null {
  const intoVxlan = poolEntering(pools, target.pools, "vxlan");
  if (intoVxlan && isOn(intoVxlan.pool.ipipMode)) return { pool: intoVxlan.pool, encap: "vxlan" };
  const intoIpip = poolEntering(pools, target.pools, "ipip");
  if (intoIpip && isOn(intoIpip.pool.vxlanMode)) return { pool: intoIpip.pool, encap: "ipip" };
  return null;
}

/** What the check's migration hint says when a pool moves from VXLAN into IPIP on Calico >= 3.31. */
export function ipipTunnelPoolAdvice(pool: string): string {
  return `IPPool ${pool} moves from VXLAN into IPIP on Calico ${CLUSTER_ROUTES_SINCE} or later: add ipip_tunnel_pool_cidr (calico_encap_ipip_tunnel_pool_cidr in the role), an IPv4 network with an address per node that no pool, kube_pods_subnet, kube_service_addresses, node or tunnel_pool_cidr uses; Felix then programs the IPIP routes (programClusterRoutes: Enabled, left on afterwards) and replaces each block's route at the switch in one write; without it BIRD adds its IPIP routes only at its 2 s kernel scan after Felix removes the VXLAN ones.`;
}

/** The pool that moves from VXLAN into IPIP on Calico >= 3.31, when ipip_tunnel_pool_cidr applies; else null. */
export function ipipTunnelPoolApplies(
  live: Pick<Live, "calicoVersion" | "pools">,
  target: Target,
): string | null {
  const s = switchingPool(live.pools, target);
  return s?.encap === "ipip" && hasClusterRoutes(live.calicoVersion) ? s.pool.name : null;
}

/**
 * Which path this migration's switch takes. Felix owns the routes when Calico is >= 3.31, a pool switches between
 * IPIP and VXLAN, and the tunnel pool of that direction is given (tunnel_pool_cidr into VXLAN,
 * ipip_tunnel_pool_cidr out of it) or exists: Felix needs every node's tunnel address before the switch (its VTEP,
 * or its IPIP tunnel address to bring tunl0 up).
 */
export function routesPath(
  live: Pick<Live, "calicoVersion" | "pools">,
  target: Target,
): RoutesPath {
  const switching = switchingPool(live.pools, target);
  const version = live.calicoVersion ?? "unknown";
  if (!switching)
    return {
      felix: false,
      why: "BIRD: no pool switches between IPIP and VXLAN, so no IPIP route changes hands",
    };
  if (!hasClusterRoutes(live.calicoVersion))
    return {
      felix: false,
      why: `BIRD: Calico ${version} has no programClusterRoutes (${CLUSTER_ROUTES_SINCE} and later), so BIRD programs the IPIP routes through the switch`,
    };
  const { option } = TUNNEL_POOL[switching.encap];
  const name = tunnelPoolName(switching.pool.name, switching.encap);
  const given =
    tunnelPoolCidrOf(target, switching.encap) !== undefined ||
    live.pools.some((p) => p.name === name);
  if (!given)
    return {
      felix: false,
      why: `BIRD: Calico ${version} has programClusterRoutes, but without ${option} the nodes get their ${switching.encap === "vxlan" ? "VTEPs" : "IPIP tunnel addresses"} only at the switch, so BIRD keeps the IPIP routes; add ${option} to have Felix program them`,
    };
  return {
    felix: true,
    encap: switching.encap,
    why: `Felix: Calico ${version} has programClusterRoutes, so FelixConfiguration default is set to programClusterRoutes: Enabled before IPPool ${switching.pool.name} switches, and Felix replaces each block's route in one write (the tunnel addresses from ${name} first)`,
  };
}

/**
 * Why ipip_tunnel_pool_cidr cannot be used on this cluster, or null: its tunnel addresses serve Felix's IPIP routes,
 * which only Calico >= 3.31 programs.
 */
export function ipipTunnelPoolRefusal(
  live: Pick<Live, "calicoVersion">,
  target: Target,
): string | null {
  if (target.ipipTunnelPoolCidr === undefined || hasClusterRoutes(live.calicoVersion)) return null;
  return `ipip_tunnel_pool_cidr needs Calico ${CLUSTER_ROUTES_SINCE} or later (Felix programs the IPIP routes with programClusterRoutes), and this cluster runs Calico ${live.calicoVersion ?? "of an unknown version"}: remove the option; the switch out of VXLAN then takes BIRD's path.`;
}

/**
 * The check's note on programClusterRoutes, or null: Enabled while no IPIP pool needs it (Felix then programs no
 * route of its own, and Calico v3.31's BIRD re-advertises what Felix programs on tunl0 while it is on).
 */
export function clusterRoutesLeftOn(
  live: Pick<Live, "felixDefault">,
  ipipPools: readonly string[],
): string | null {
  if (!clusterRoutesEnabled(live.felixDefault) || ipipPools.length > 0) return null;
  return 'FelixConfiguration default has programClusterRoutes: Enabled, and no IPIP pool needs it: Felix programs no IPIP route now. calico_encap_migrate turns it off when a migration leaves IPIP; set it back to Disabled (calicoctl patch felixconfiguration default -p \'{"spec":{"programClusterRoutes":null}}\') unless you mean to keep it.';
}
