// Felix's IPv6 route resyncs, read from the lab's `ip monitor` logs (test/lab/net.sh), and the IPv6 probes they cost.
//
// Calico v3.31.0's Felix keys a route it wants by CIDR, metric and TOS with metric 0, and the kernel stores an IPv6
// route added with metric 0 at 1024 (IPv4 keeps 0). So at each full route resync (at Felix's start, and every
// RouteRefreshInterval, 90 s by default) Felix reads each of its IPv6 routes back as one it does not want, and misses
// the one it wants: it deletes every IPv6 route it owns, then adds each again (felix/routetable/route_table.go,
// routeKeyForCIDR and applyUpdates: deletions first). Quiet, the gap is under a millisecond; a Felix held off the CPU
// between the two makes it long enough to lose IPv6 probes. Seen on the lab (2026-12-04, dualstack profile, node-1's
// monitor): every IPv6 route Felix owns (the vxlan-v6.calico block and VTEP routes, the workload route, the blackhole)
// deleted and re-added at 13:18:58.772 and again at 13:20:28.891, nothing written in between. Calico fixed it after
// v3.31.0 (projectcalico/calico#11323; #11356 sets metric 1024 for IPv6, picked onto release-v3.31 as #11394 and
// release-v3.30 as #11395, merged 2025-11-17).

import type { ProberFigures } from "./lab.js";
import { labMonitorLogs, routeGaps, type RouteGap } from "./monitor-logs.js";
import { gapsExplain, unexplainedOutages } from "./outages.js";

/** One of Felix's IPv6 routes deleted on a node and added back: a resync's measured gap. */
export type RouteResync = RouteGap;

/**
 * The longest delete-to-add counted as a resync: Felix deletes and re-adds within one apply, which a Felix held off
 * the CPU stretches to hundreds of milliseconds; a route added back later was removed and created again.
 */
export const RESYNC_MAX_MS = 5000;

const felixV6 = (rest: string): boolean => !/\bproto bird\b/.test(rest);

/**
 * Felix's IPv6 route resyncs in one monitor log's text: a deletion of an IPv6 route of Felix's (metric 1024, not
 * BIRD's proto bird) and Felix's add of the same destination within RESYNC_MAX_MS. A route deleted and not added
 * back (removed for good, or taken by BIRD6) is none.
 */
export function ipv6RouteResyncs(node: string, log: string): RouteResync[] {
  return routeGaps(
    node,
    log,
    (e) => e.family === "ipv6" && /\bmetric 1024\b/.test(e.rest) && felixV6(e.rest),
    (e) => e.family === "ipv6" && felixV6(e.rest),
    RESYNC_MAX_MS,
  );
}

/** The lab's nodes' IPv6 route resyncs by Felix, from every <state>/log/monitor-<node>.log. */
export function labIpv6RouteResyncs(state: string): RouteResync[] {
  return labMonitorLogs(state).flatMap(({ node, log }) => ipv6RouteResyncs(node, log));
}

/**
 * How far an outage's lost probes may lie from a resync it is put down to, for placing it only (the agent stamps a
 * probe before sending it; `ip monitor` stamps a change when it reads it). How many probes a resync may cost is its
 * own measured width (probesInGap), not this.
 */
export const RESYNC_SLACK_MS = 1000;

/**
 * The IPv6 outages that no resync of Felix's explains: an outage of pair A -> B (the prober's IPv6 agents,
 * "node-N.v6" for a pod and "node-N.host.v6" for a node's own address) is explained by resyncs of routes on its way
 * (on node A or node B, to A's or B's address) within RESYNC_SLACK_MS of its lost probes, when it lost no more probes
 * than those resyncs' measured widths can at the pair's rate. `complete` is false when the prober's outages do not
 * account for every lost IPv6 probe (it keeps at most 100 a pair).
 */
export function unexplainedIpv6Outages(
  p: ProberFigures,
  resyncs: RouteResync[],
): { outages: string[]; complete: boolean } {
  const { outages, complete } = unexplainedOutages(
    p.pairs.filter((pair) => pair.family === "ipv6"),
    (o) => gapsExplain(o, resyncs, RESYNC_SLACK_MS),
  );
  return { outages, complete };
}
