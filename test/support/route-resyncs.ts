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
import { labMonitorLogs } from "./monitor-logs.js";
import { unexplainedOutages } from "./outages.js";

/** One IPv6 route of Felix's deleted on a node (ip monitor's "Deleted ... metric 1024", not BIRD's). */
export interface RouteDeletion {
  node: string;
  /** Milliseconds since the epoch: ip -ts prints the machine's local time, which Date.parse reads as local. */
  at: number;
  line: string;
}

const DELETED_V6 =
  /^\[([0-9T:.-]+)\] Deleted (?:blackhole )?[0-9a-f]*:[0-9a-f:/]* .*\bmetric 1024\b/;

/** Felix's IPv6 route deletions in one monitor log's text (BIRD's, proto bird, are not Felix's). */
export function ipv6RouteDeletions(node: string, log: string): RouteDeletion[] {
  const out: RouteDeletion[] = [];
  for (const line of log.split("\n")) {
    const m = DELETED_V6.exec(line);
    if (!m?.[1] || / proto bird\b/.test(line) || / fe80:/.test(line)) continue;
    out.push({ node, at: Date.parse(m[1]), line });
  }
  return out;
}

/** The lab's nodes' IPv6 route deletions by Felix, from every <state>/log/monitor-<node>.log. */
export function labIpv6RouteDeletions(state: string): RouteDeletion[] {
  return labMonitorLogs(state).flatMap(({ node, log }) => ipv6RouteDeletions(node, log));
}

/** How far an outage's first and last lost probe may lie from a deletion it is put down to. */
export const RESYNC_SLACK_MS = 1000;

/**
 * The IPv6 outages that no route deletion of Felix's explains: an outage of pair A -> B (the prober's IPv6 agents,
 * "node-N.v6" for a pod and "node-N.host.v6" for a node's own address) is explained by a deletion on node A or
 * node B within RESYNC_SLACK_MS of its lost probes. `complete` is false when the prober's outages do not account for
 * every lost IPv6 probe (it keeps at most 100 a pair).
 */
export function unexplainedIpv6Outages(
  p: ProberFigures,
  deletions: RouteDeletion[],
): { outages: string[]; complete: boolean } {
  const { outages, complete } = unexplainedOutages(
    p.pairs.filter((pair) => pair.family === "ipv6"),
    (o) =>
      deletions.some(
        (d) =>
          o.nodes.includes(d.node) &&
          d.at >= o.from - RESYNC_SLACK_MS &&
          d.at <= o.to + RESYNC_SLACK_MS,
      ),
  );
  return { outages, complete };
}
