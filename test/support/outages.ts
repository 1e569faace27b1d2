// The prober's outages (runs of lost probes, test/lab/prober) that a mechanism seen in the lab's logs explains, and
// those it does not. One walk for every mechanism: route-resyncs.ts (Felix's IPv6 route resyncs) and
// bird-rewrites.ts (BIRD's rewrites while Felix takes its routes over) each say only which outage they explain.

import type { PairReport } from "../lab/prober/control.js";
import { containsAddress } from "../../src/calico/shared/cidr.js";
import type { RouteGap } from "./monitor-logs.js";

/** The lab node a prober agent runs on: "node-2.host.v6", "node-2.v6", "node-2.host" and "node-2" are node-2's. */
export function nodeOfAgent(agent: string): string {
  return agent.replace(/(\.host)?(\.v6)?$/, "");
}

/**
 * An outage with its pair's nodes, addresses and family, its first and last lost probe in ms since the epoch, how
 * many it lost, and the pair's probe interval.
 */
export interface PlacedLoss {
  family: PairReport["family"];
  /** The sending and the receiving agent's nodes. */
  nodes: [string, string];
  /** The sending and the receiving agent's addresses: a probe goes to the second, its echo back to the first. */
  addresses: [string, string];
  from: number;
  to: number;
  lost: number;
  /** Milliseconds between two probes of the pair (1000 / its rate). */
  intervalMs: number;
  /** How many of the lost probes the agent sent as catch-up, owed from before the tick that sent them (Outage). */
  caughtUp: number;
}

/**
 * Whether a route's destination as `ip monitor` prints it (a network, or an address for a host route) covers an
 * address: the route a packet to that address takes, when it is the most specific.
 */
export function routeCovers(destination: string, address: string): boolean {
  if (destination.includes("/")) return containsAddress(destination, address);
  return containsAddress(`${destination}/${destination.includes(":") ? 128 : 32}`, address);
}

/**
 * How many of a pair's probes a route gone for `widthMs` can lose: those sent while it was gone, at one every
 * `intervalMs`, and the one in flight when it went.
 */
export function probesInGap(widthMs: number, intervalMs: number): number {
  return Math.floor(widthMs / intervalMs) + 1;
}

/**
 * Whether a route gone for a while on a node lies on a pair's way: on the sending or the receiving node, a route to
 * either agent's address (the probe's way out and in, and its echo's).
 */
export function onPairsWay(gap: RouteGap, o: PlacedLoss): boolean {
  return o.nodes.includes(gap.node) && o.addresses.some((a) => routeCovers(gap.destination, a));
}

/**
 * How far a lost probe's send time may lie from a route's gap, for placing it only: the agent stamps a probe before
 * its event loop sends it, and `ip monitor` stamps a route change when it reads it. How many probes a gap may cost
 * is its own measured width (probesInGap), not this.
 */
export const PLACE_SLACK_MS = 250;

/**
 * Whether route gaps explain an outage: each gap on the pair's way (onPairsWay) and within `slackMs` of its lost
 * probes, and no more probes lost than those gaps' measured widths can lose at the pair's rate (probesInGap), plus
 * those the agent sent as catch-up (a tick after a timer stall sends the rounds it owes at once, so a gap can hold
 * more send times than its width at the nominal rate; the agent counts them per outage).
 */
export function gapsExplain(o: PlacedLoss, gaps: readonly RouteGap[], slackMs: number): boolean {
  const near = gaps.filter(
    (g) => onPairsWay(g, o) && o.from >= g.deletedAt - slackMs && o.to <= g.addedAt + slackMs,
  );
  const allowed =
    near.reduce((a, g) => a + probesInGap(g.addedAt - g.deletedAt, o.intervalMs), 0) + o.caughtUp;
  return near.length > 0 && o.lost <= allowed;
}

/**
 * The outages of `pairs` that `explains` does not explain, as "A -> B: N lost from T1 to T2"; how many probes it
 * explained; `complete` false when the prober's outages do not account for every lost probe of `pairs` (it keeps at
 * most 100 a pair).
 */
export function unexplainedOutages(
  pairs: readonly PairReport[],
  explains: (loss: PlacedLoss) => boolean,
): { outages: string[]; explained: number; complete: boolean } {
  const outages: string[] = [];
  let lost = 0;
  let counted = 0;
  let explained = 0;
  for (const pair of pairs) {
    lost += pair.lost;
    const nodes: [string, string] = [nodeOfAgent(pair.from), nodeOfAgent(pair.to)];
    const addresses: [string, string] = [pair.from_address, pair.to_address];
    const intervalMs = pair.rate_pps > 0 ? 1000 / pair.rate_pps : Infinity;
    for (const o of pair.outages) {
      counted += o.lost;
      const loss: PlacedLoss = {
        family: pair.family,
        nodes,
        addresses,
        from: Date.parse(o.from),
        to: Date.parse(o.to),
        lost: o.lost,
        intervalMs,
        caughtUp: o.caught_up ?? 0,
      };
      if (explains(loss)) explained += o.lost;
      else outages.push(`${pair.from} -> ${pair.to}: ${o.lost} lost from ${o.from} to ${o.to}`);
    }
  }
  return { outages, explained, complete: counted === lost };
}
