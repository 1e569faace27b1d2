// The lab's per-node `ip monitor link route neigh` logs (test/lab/net.sh writes <state>/log/monitor-<node>.log from
// before calico-node starts; each line stamped by `ip -ts`).

import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** One node's monitor log, as text. */
export function monitorLog(state: string, node: string): string {
  return readFileSync(join(state, "log", `monitor-${node}.log`), "utf8");
}

/** Every node's monitor log in the lab's state directory. */
export function labMonitorLogs(state: string): { node: string; log: string }[] {
  return readdirSync(join(state, "log"))
    .map((f) => /^monitor-(.+)\.log$/.exec(f)?.[1])
    .filter((node): node is string => node !== undefined)
    .sort()
    .map((node) => ({ node, log: monitorLog(state, node) }));
}

/**
 * When `ip -ts` stamped a line, in milliseconds since the epoch with the microseconds it prints kept as a fraction
 * (Date.parse would drop them: BIRD's rewrites last tens of microseconds). ip -ts prints the machine's local time,
 * which Date.parse reads as local.
 */
export function monitorTime(stamp: string): number {
  const m = /^([0-9-]+T[0-9:]+)(?:\.(\d+))?$/.exec(stamp);
  if (!m?.[1]) return NaN;
  return Date.parse(m[1]) + (m[2] ? Number(`0.${m[2]}`) * 1000 : 0);
}

/** One route added or deleted in a node's monitor log (not a neighbour, a link, or a route of the local table). */
export interface RouteEvent {
  at: number;
  deleted: boolean;
  /** The destination as ip prints it: a block (10.233.69.0/24), or an address for a host route. */
  destination: string;
  family: "ipv4" | "ipv6";
  /** What ip printed after the destination (via, dev, proto, metric). */
  rest: string;
}

const ROUTE =
  /^\[([0-9T:.-]+)\] (Deleted )?(?:(?:blackhole|unreachable|prohibit) )?(\d+\.\d+\.\d+\.\d+(?:\/\d+)?|[0-9a-f]*:[0-9a-f:]*(?:\/\d+)?) (.*)$/;

/** The routes added and deleted in one node's monitor log, in its order. */
export function routeEvents(log: string): RouteEvent[] {
  const out: RouteEvent[] = [];
  for (const line of log.split("\n")) {
    const m = ROUTE.exec(line);
    if (!m?.[1] || !m[3] || m[4] === undefined) continue;
    if (/\blladdr\b|\btable local\b/.test(m[4]) || /^(default|fe80:)/.test(m[3])) continue;
    if (/\b(STALE|REACHABLE|PROBE|DELAY|FAILED|INCOMPLETE|PERMANENT|NOARP)\s*$/.test(m[4]))
      continue;
    out.push({
      at: monitorTime(m[1]),
      deleted: m[2] !== undefined,
      destination: m[3],
      family: m[3].includes(":") ? "ipv6" : "ipv4",
      rest: m[4],
    });
  }
  return out;
}

/** A route deleted and then added back, on one node: a rewrite (BIRD's) or a resync (Felix's IPv6 routes). */
export interface RouteGap {
  node: string;
  destination: string;
  deletedAt: number;
  addedAt: number;
}

/**
 * The routes of one node's monitor log that were deleted (`deleted` picks whose deletion counts) and added back
 * (`added` picks whose add counts) within `maxMs`, nothing else added to that destination in between: the route's
 * measured absence. A deletion never followed by such an add (a route removed for good, or replaced by another
 * agent's) is none.
 */
export function routeGaps(
  node: string,
  log: string,
  deleted: (e: RouteEvent) => boolean,
  added: (e: RouteEvent) => boolean,
  maxMs: number,
): RouteGap[] {
  const out: RouteGap[] = [];
  const open = new Map<string, number>();
  for (const e of routeEvents(log)) {
    if (e.deleted) {
      if (deleted(e)) open.set(e.destination, e.at);
      continue;
    }
    const deletedAt = open.get(e.destination);
    open.delete(e.destination);
    if (deletedAt !== undefined && added(e) && e.at - deletedAt <= maxMs)
      out.push({ node, destination: e.destination, deletedAt, addedAt: e.at });
  }
  return out;
}
