// Bounds on how long the data plane was out, read from the prober's longest outage (the longest gap with a lost probe
// in it, test/lab/prober/outage-gap.ts), never from its plain longest gap: on a loaded machine the agents are held off
// the CPU and send nothing for a while, a gap with nothing lost in it. A migration that lost nothing passes every
// bound here whatever its longest gap (issue 50: 0 of 87502 lost, longest gap 828.7 ms against a quarter of the
// documented steps' 2732.7 ms, at load 14-20); the same gap made of lost probes fails.

import { expect } from "chai";
import type { LossFigures } from "../lab/prober/control.js";

/** What a failed bound adds: the plain gap beside the outage, so a stall and an outage read apart. */
function figures(p: LossFigures): string {
  return `${p.lost} of ${p.sent} probes lost, longest outage ${p.longest_outage_ms} ms (longest gap ${p.longest_gap_ms} ms)`;
}

/** The longest outage is below `boundMs` (a window measured in the same run: a step's duration). */
export function expectOutageBelow(p: LossFigures, boundMs: number, what: string): void {
  expect(p.longest_outage_ms, `${what}: ${figures(p)}, bound ${boundMs} ms`).to.be.below(boundMs);
}

/**
 * The longest outage is under `share` of a yardstick's from the same run, whose own loss was real (it lost probes, so
 * its outage is the network's, not a stall): a ratio, so that a slow or loaded machine moves both alike.
 */
export function expectOutageUnderShare(
  p: LossFigures,
  yardstick: LossFigures | null,
  share: number,
  what: string,
): void {
  expect(yardstick, `${what}: the yardstick ran first in this run`).to.not.equal(null);
  const y = yardstick as LossFigures;
  expect(y.lost, `${what}: the yardstick lost probes (its outage is real)`).to.be.above(0);
  expectOutageBelow(
    p,
    y.longest_outage_ms * share,
    `${what} (${share} of ${y.longest_outage_ms} ms)`,
  );
}
