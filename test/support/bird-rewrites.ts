// BIRD rewriting its own kernel routes while Felix takes them over, read from the lab's `ip monitor` logs
// (test/lab/net.sh), and the probes that may cost on Felix's path.
//
// The write that turns programClusterRoutes on restarts every Felix at once, and each takes over BIRD's routes on its
// node some seconds later, not all at the same moment (felix-restart.ts: up to 7.7 s after the change). In between,
// Calico v3.31's BIRD on a node whose Felix has taken over learns Felix's routes from the kernel (its kernel protocol
// has `learn` and `import all`) and re-advertises the other nodes' blocks to its peers, the side effect named in
// ../shared/reference/felix-owned-routes.md (fixed after v3.33). A peer whose Felix has not taken over yet then
// rewrites its own route to that block, and BIRD 1.6 rewrites a kernel route as a delete followed by an add
// (NLM_F_EXCL), so the route is gone for tens of microseconds. A probe routed in that moment is lost. Seen in the
// lab's kept logs (2026-12-04, 38 runs of the real calico-node v3.31.0): of BIRD's 556 deletes of a route that it
// re-added within 1 ms, 216 came within 50 ms after another node's Felix took a route over (median 1.9 ms after;
// test/bench/FIGURES.md, "When Felix takes BIRD's routes over"). The path's order cannot avoid it: until the last
// Felix has taken over, some node's BIRD owns routes that other BIRDs' learning makes it rewrite. v3.32's iBGP export
// still lets BIRD re-advertise tunl0 routes; Calico's main rejects them once BGPConfiguration programClusterRoutes
// leaves the IPIP routes to Felix (dc0f49fc43, after v3.32).

import type { ProberFigures, StepTiming } from "./lab.js";
import { labMonitorLogs, routeGaps, type RouteGap } from "./monitor-logs.js";
import { gapsExplain, PLACE_SLACK_MS, unexplainedOutages } from "./outages.js";

/** One of BIRD's kernel route rewrites on a node: its delete of a route, and its add of the same destination. */
export type BirdRewrite = RouteGap;

/** The longest delete-to-add a rewrite may take: BIRD's take tens of microseconds; a withdrawal is not a rewrite. */
export const REWRITE_MAX_MS = 100;

const bird = (rest: string): boolean => /\bproto bird\b/.test(rest);

/**
 * BIRD's IPv4 route rewrites in one monitor log's text: BIRD's delete of a route (proto bird) and its add of the same
 * destination within REWRITE_MAX_MS, nothing else added there in between.
 */
export function birdRewrites(node: string, log: string): BirdRewrite[] {
  return routeGaps(
    node,
    log,
    (e) => e.family === "ipv4" && bird(e.rest),
    (e) => bird(e.rest),
    REWRITE_MAX_MS,
  );
}

/** The lab's nodes' BIRD route rewrites, from every <state>/log/monitor-<node>.log. */
export function labBirdRewrites(state: string): BirdRewrite[] {
  return labMonitorLogs(state).flatMap(({ node, log }) => birdRewrites(node, log));
}

/** How far a lost probe's send time may lie from a rewrite, for placing it only (outages.ts). */
export const REWRITE_SLACK_MS = PLACE_SLACK_MS;

/** The step of Felix's path that turns programClusterRoutes on (plan.ts), where BIRD's rewrites can cost probes. */
export const TAKEOVER_STEP = /\bprogramClusterRoutes: Enabled\b/;

/**
 * The lost probes of Felix's path that BIRD's rewrites during the takeover do not explain. An outage of pair A -> B
 * is explained when it was sent during the step that turns programClusterRoutes on (TAKEOVER_STEP) and BIRD rewrote
 * a route on its way (onPairsWay) within REWRITE_SLACK_MS of it,
 * losing no more probes than those rewrites' widths can; IPv6 outages never are. `complete` is false when the
 * prober's outages do not account for every lost probe (it keeps at most 100 a pair).
 */
export function unexplainedTakeoverOutages(
  p: ProberFigures,
  steps: StepTiming[],
  rewrites: BirdRewrite[],
): { outages: string[]; explained: number; complete: boolean } {
  const takeover = steps.find((s) => TAKEOVER_STEP.test(s.title) && s.written_at);
  const start = takeover?.written_at ? Date.parse(takeover.written_at) : NaN;
  const end = start + (takeover?.seconds ?? 0) * 1000;
  return unexplainedOutages(
    p.pairs,
    (o) =>
      o.family !== "ipv6" &&
      o.from >= start &&
      o.to <= end &&
      gapsExplain(o, rewrites, REWRITE_SLACK_MS),
  );
}
