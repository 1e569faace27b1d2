// Who programs the IPIP routes through a switch between IPIP and VXLAN: BIRD, or Felix with FelixConfiguration
// programClusterRoutes (Calico >= 3.31; ../shared/reference/felix-owned-routes.md). With both agents on a node,
// each pool write races them: into VXLAN BIRD withdraws its routes while Felix adds its own, out of VXLAN BIRD cannot
// add over Felix's route and tries again only at its 2 s kernel scan. With programClusterRoutes Enabled, Felix
// programs the IPIP routes too (via the peer on tunl0, protocol 80) and replaces each block's route in one
// RouteReplace when its pool changes type; BIRD's adds fail ("File exists") and its deletes do not match Felix's
// protocol. The one answer the planner, the check and the result share. Pure.
//
// Which Calico releases this holds for (read in projectcalico/calico, 2026-12-04): v3.31 and v3.32 have the field
// with Enabled and Disabled, and there BIRD keeps programming the IPIP routes whatever Felix does, except that v3.32
// adds BGPConfiguration programClusterRoutes (default Enabled; Disabled makes confd reject every IPIP and
// unencapsulated pool from BIRD's kernel export, so Felix's field alone then decides whether those pools have routes;
// confd/pkg/backends/calico/bgp_processor.go). calico-encap does not read BGPConfiguration, so from v3.32 on it never
// turns Felix's field off and never advises to. The release-v3.33 branch and main change the field itself (four
// values, default EnabledIPIPOnly: Felix programs the IPIP routes unless told otherwise; api felixconfig.go), so the
// path below is not taken there and the field is left as the cluster has it.

import { poolsUsing } from "./felix.js";
import type { FelixFlags, Live, Pool } from "./model.js";
import type { Target } from "./observation.js";
import { switchedInto } from "./pool-switch.js";
import { calicoAtLeast } from "./rules.js";
import type { TunnelEncap } from "./tunnel-pool.js";
import {
  TUNNEL_POOL,
  poolEntering,
  tunnelPoolCidrOf,
  tunnelPoolName,
  workloadPools,
} from "./tunnel-pool.js";

/** The first Calico release whose FelixConfiguration has programClusterRoutes. */
export const CLUSTER_ROUTES_SINCE = "v3.31";

/** The first Calico release whose programClusterRoutes differs from v3.31's (four values, Felix's by default). */
export const CLUSTER_ROUTES_CHANGED = "v3.33";

/** The Calico releases whose programClusterRoutes this path was built for, in a message's words. */
export const CLUSTER_ROUTES_RELEASES = "v3.31 or v3.32";

/**
 * Whether this Calico's Felix can program the IPIP routes with the programClusterRoutes this path writes (v3.31,
 * v3.32); an unknown version cannot.
 */
export function hasClusterRoutes(calicoVersion: string | null): boolean {
  return calicoAtLeast(calicoVersion, 3, 31, false) && !calicoAtLeast(calicoVersion, 3, 33, true);
}

/**
 * Whether turning Felix's programClusterRoutes off hands the IPIP routes back to BIRD: before v3.32 BIRD programs
 * them whatever Felix does. From v3.32, BGPConfiguration programClusterRoutes: Disabled leaves them to Felix alone,
 * and calico-encap does not read it; an unknown version is treated the same.
 */
export function birdKeepsClusterRoutes(calicoVersion: string | null): boolean {
  return !calicoAtLeast(calicoVersion, 3, 32, true);
}

/** Whether FelixConfiguration default has Felix program the IPIP routes (unset is Disabled). */
export function clusterRoutesEnabled(felixDefault: FelixFlags | null): boolean {
  return felixDefault?.programClusterRoutes === "Enabled";
}

/**
 * The workload pools whose routes keep programClusterRoutes on: those that use IPIP. Turning it off restarts Felix,
 * which deletes its IPIP routes, and BIRD re-adds them only at its next kernel scan (up to 2 s; from v3.32 with
 * BGPConfiguration programClusterRoutes: Disabled, never; felix-owned-routes.md). So it is turned off only when this
 * is empty: the planner's last Felix write, and a rollback, which leaves it on rather than restore it into that gap.
 */
export function poolsNeedingClusterRoutes(pools: readonly Pool[]): string[] {
  return poolsUsing(workloadPools(pools), "ipip");
}

export interface RoutesPath {
  /** true: Felix programs the IPIP routes through the switch (programClusterRoutes Enabled first). */
  felix: boolean;
  /** The direction whose tunnel pool the path creates, when Felix owns the routes. */
  encap?: TunnelEncap;
  /** Which agent, and why, in the result's words. */
  why: string;
}

/**
 * The pool that switches between IPIP and VXLAN (pool-switch.ts), and the encapsulation it moves into; null when none
 * does. Into VXLAN first: the pool that enters it (poolEntering), if it had IPIP on; else the one that enters IPIP, if
 * it had VXLAN on.
 */
export function switchingPool(
  pools: Live["pools"],
  target: Target,
): { pool: Live["pools"][number]; encap: TunnelEncap } | null {
  for (const encap of ["vxlan", "ipip"] as const) {
    const entering = poolEntering(pools, target.pools, encap);
    if (entering && switchedInto(entering.pool, entering.to) === encap)
      return { pool: entering.pool, encap };
  }
  return null;
}

/** What the check's migration hint says when a pool moves from VXLAN into IPIP on Calico v3.31 or v3.32. */
export function ipipTunnelPoolAdvice(pool: string): string {
  return `IPPool ${pool} moves from VXLAN into IPIP on Calico ${CLUSTER_ROUTES_RELEASES}: add ipip_tunnel_pool_cidr (calico_encap_ipip_tunnel_pool_cidr in the role), an IPv4 network with an address per node that no pool, kube_pods_subnet, kube_service_addresses, node or tunnel_pool_cidr uses; Felix then programs the IPIP routes (programClusterRoutes: Enabled, left on afterwards) and replaces each block's route at the switch in one write; without it BIRD adds its IPIP routes only at its 2 s kernel scan after Felix removes the VXLAN ones.`;
}

/** The pool that moves from VXLAN into IPIP on Calico v3.31 or v3.32, when ipip_tunnel_pool_cidr applies; else null. */
export function ipipTunnelPoolApplies(
  live: Pick<Live, "calicoVersion" | "pools">,
  target: Target,
): string | null {
  const s = switchingPool(live.pools, target);
  return s?.encap === "ipip" && hasClusterRoutes(live.calicoVersion) ? s.pool.name : null;
}

/**
 * Which path this migration's switch takes. Felix owns the routes when Calico is v3.31 or v3.32, a pool switches between
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
  if (calicoAtLeast(live.calicoVersion, 3, 33, false))
    return {
      felix: false,
      why: `Calico ${version}: programClusterRoutes changed in ${CLUSTER_ROUTES_CHANGED} (four values; by default Felix programs the IPIP routes), and calico-encap's Felix path is built for ${CLUSTER_ROUTES_RELEASES}, so it leaves the field as the cluster has it and the pools switch as they are`,
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
  const stays =
    switching.encap === "vxlan" && !birdKeepsClusterRoutes(live.calicoVersion)
      ? "; programClusterRoutes stays Enabled afterwards (from v3.32 BGPConfiguration programClusterRoutes: Disabled can leave the cluster routes to Felix alone, and calico-encap does not read it)"
      : "";
  return {
    felix: true,
    encap: switching.encap,
    why: `Felix: Calico ${version} has programClusterRoutes, so FelixConfiguration default is set to programClusterRoutes: Enabled before IPPool ${switching.pool.name} switches, and Felix replaces each block's route in one write (the tunnel addresses from ${name} first)${stays}`,
  };
}

/**
 * Why ipip_tunnel_pool_cidr cannot be used on this cluster, or null: its tunnel addresses serve Felix's IPIP routes,
 * which this path has Felix program on Calico v3.31 and v3.32 only.
 */
export function ipipTunnelPoolRefusal(
  live: Pick<Live, "calicoVersion">,
  target: Target,
): string | null {
  if (target.ipipTunnelPoolCidr === undefined || hasClusterRoutes(live.calicoVersion)) return null;
  if (calicoAtLeast(live.calicoVersion, 3, 33, false))
    return `ipip_tunnel_pool_cidr is built for Calico ${CLUSTER_ROUTES_RELEASES} (Felix programs the IPIP routes with programClusterRoutes: Enabled), and this cluster runs Calico ${live.calicoVersion ?? ""}, whose programClusterRoutes changed in ${CLUSTER_ROUTES_CHANGED} (four values; by default Felix programs the IPIP routes): remove the option; the pool then switches as it is.`;
  return `ipip_tunnel_pool_cidr needs Calico ${CLUSTER_ROUTES_RELEASES} (Felix programs the IPIP routes with programClusterRoutes), and this cluster runs Calico ${live.calicoVersion ?? "of an unknown version"}: remove the option; the switch out of VXLAN then takes BIRD's path.`;
}

/**
 * The check's note on programClusterRoutes, or null: Enabled while no IPIP pool needs it (Felix then programs no
 * route of its own, and Calico v3.31's BIRD re-advertises what Felix programs on tunl0 while it is on). Only where
 * turning it off hands the routes back to BIRD (birdKeepsClusterRoutes).
 */
export function clusterRoutesLeftOn(
  live: Pick<Live, "felixDefault" | "calicoVersion">,
  ipipPools: readonly string[],
): string | null {
  if (!clusterRoutesEnabled(live.felixDefault) || ipipPools.length > 0) return null;
  if (!birdKeepsClusterRoutes(live.calicoVersion)) return null;
  return 'FelixConfiguration default has programClusterRoutes: Enabled, and no IPIP pool needs it: Felix programs no IPIP route now. calico_encap_migrate turns it off when a migration leaves IPIP; set it back to Disabled (calicoctl patch felixconfiguration default -p \'{"spec":{"programClusterRoutes":null}}\') unless you mean to keep it.';
}
