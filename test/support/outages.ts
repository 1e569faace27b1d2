// The prober's outages (runs of lost probes, test/lab/prober) that a mechanism seen in the lab's logs explains, and
// those it does not. One walk for every mechanism: route-resyncs.ts (Felix's IPv6 route resyncs) and
// bird-rewrites.ts (BIRD's rewrites while Felix takes its routes over) each say only which outage they explain.

import type { PairReport } from "../lab/prober/control.js";

/** The lab node a prober agent runs on: "node-2.host.v6", "node-2.v6", "node-2.host" and "node-2" are node-2's. */
export function nodeOfAgent(agent: string): string {
  return agent.replace(/(\.host)?(\.v6)?$/, "");
}

/** An outage with its pair's nodes and family, and its first and last lost probe in ms since the epoch. */
export interface PlacedLoss {
  family: PairReport["family"];
  /** The sending and the receiving agent's nodes. */
  nodes: [string, string];
  from: number;
  to: number;
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
    for (const o of pair.outages) {
      counted += o.lost;
      const loss = { family: pair.family, nodes, from: Date.parse(o.from), to: Date.parse(o.to) };
      if (explains(loss)) explained += o.lost;
      else outages.push(`${pair.from} -> ${pair.to}: ${o.lost} lost from ${o.from} to ${o.to}`);
    }
  }
  return { outages, explained, complete: counted === lost };
}
