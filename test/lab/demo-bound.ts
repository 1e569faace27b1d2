// make demo's bound on the prober's figure, taken from the same run: every probe the migration lost was sent
// between the pool switch's write and the end of its wait, the longest outage (a gap with lost probes in it) is below
// that step's duration plus 1 s, and no more were lost than the prober sends in that time (expectLossInPoolSwitch, as the lab tests hold the
// migrations they measure). Reads the migration's result from ansible-playbook's output (-v, the default callback's
// one-line JSON) and the prober's report (`prober read`); exits 1 with what was observed when the bound fails.
//   node dist/test/lab/demo-bound.js <ansible-playbook output> <prober report JSON>

import { readFileSync } from "node:fs";
import {
  expectLossInPoolSwitch,
  poolSwitchTitle,
  TUNNEL_POOL_STEP,
  type ProberFigures,
  type StepTiming,
} from "../support/lab.js";

/** The result of the task whose JSON has a `steps` list: the migration's. */
export function migrationResult(output: string): { steps: StepTiming[] } | null {
  for (const line of output.split("\n")) {
    const m = /^(?:ok|changed): \[[^\]]*\][^{]* => (\{.*\})$/.exec(line);
    if (!m?.[1]) continue;
    const result = JSON.parse(m[1]) as { steps?: StepTiming[] };
    if (Array.isArray(result.steps)) return { steps: result.steps };
  }
  return null;
}

function main(): void {
  const [outputFile, proberFile] = process.argv.slice(2);
  if (!outputFile || !proberFile) {
    console.error("usage: demo-bound.js <ansible-playbook output> <prober report JSON>");
    process.exit(2);
  }
  const result = migrationResult(readFileSync(outputFile, "utf8"));
  if (!result) {
    console.error(`demo-bound: no migration result with steps in ${outputFile}`);
    process.exit(1);
  }
  const p = JSON.parse(readFileSync(proberFile, "utf8")) as ProberFigures;
  try {
    // With tunnel_pool_cidr, lost probes may lie in the tunnel pool's creation too (BIRD's refeed, TUNNEL_POOL_STEP).
    const tunnelPool = result.steps.some((s) => TUNNEL_POOL_STEP.test(s.title));
    const windowMs = expectLossInPoolSwitch(
      p,
      result.steps,
      poolSwitchTitle(),
      tunnelPool ? TUNNEL_POOL_STEP : poolSwitchTitle(),
    );
    console.log(
      `bound held: ${p.lost} lost (at most ${Math.floor((p.rate_pps * windowMs) / 1000)}), longest outage ${p.longest_outage_ms} ms (below ${windowMs} ms; longest gap ${p.longest_gap_ms} ms), every lost probe sent during ${tunnelPool ? "the tunnel pool's creation or " : ""}the pool switch step`,
    );
  } catch (e) {
    console.error(
      `demo-bound: the prober's figure broke the bound: ${e instanceof Error ? e.message : String(e)}`,
    );
    process.exit(1);
  }
}

if (process.argv[1]?.endsWith("demo-bound.js")) main();
