// The planner alone (issue 40): the pure decisions of src/calico/plan timed on a recorded observation, without the
// reads. With --record FILE it first observes the live cluster as a migration poll does (observeForMigration, local
// commands) and writes that observation as JSON; with --from FILE it only reads one. Then it times, each
// BENCH_PLAN_RUNS times (default 50, after 3 warm-up runs): plan() towards VXLAN/vxlan (what a run computes before
// its first write and after each step), and a wait's decisions on one poll (unsettled() and progressOf(), what
// every poll computes). Prints one TSV line: nodes, runs, plan ms median / max, the wait's ms median / max, the
// observation's JSON bytes. It measures; it never fails on time. test/bench/scale.sh runs it with BENCH_PLAN=1.
//   node dist/test/bench/plan.bench.js --record obs.json --calicoctl calicoctl.sh --kubectl kubectl --kubeconfig K
//   node dist/test/bench/plan.bench.js --from obs.json

import { readFileSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { plan, unsettled } from "../../src/calico/plan/plan.js";
import { progressOf } from "../../src/calico/plan/progress.js";
import type { ClusterObservation, Target } from "../../src/calico/shared/observation.js";
import { observeForMigration } from "../../src/cluster/observe-migration.js";
import { LocalRunner } from "../../src/cluster/runner.js";

const { values } = parseArgs({
  options: {
    record: { type: "string" },
    from: { type: "string" },
    calicoctl: { type: "string", default: "calicoctl" },
    kubectl: { type: "string", default: "kubectl" },
    kubeconfig: { type: "string", default: "" },
    pool: { type: "string", default: "default-pool" },
  },
});
const RUNS = Number(process.env.BENCH_PLAN_RUNS ?? 50);

async function observation(): Promise<{ obs: ClusterObservation; bytes: number }> {
  const file = values.record ?? values.from;
  if (!file) throw new Error("--record FILE or --from FILE");
  if (values.record) {
    const live = await observeForMigration(new LocalRunner(), {
      client: "auto",
      datastore: "kdd",
      calicoctlPath: values.calicoctl,
      kubectlPath: values.kubectl,
      kubeconfig: values.kubeconfig,
      timeoutSeconds: 120,
    });
    writeFileSync(file, JSON.stringify(live));
  }
  const text = readFileSync(file, "utf8");
  return { obs: JSON.parse(text) as ClusterObservation, bytes: Buffer.byteLength(text) };
}

/** Median and largest milliseconds of fn over RUNS runs, after 3 warm-up runs. */
function timed(fn: () => unknown): [number, number] {
  for (let i = 0; i < 3; i++) fn();
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return [ms[Math.floor((ms.length - 1) / 2)] ?? 0, ms[ms.length - 1] ?? 0];
}

const { obs, bytes } = await observation();
const target: Target = {
  pools: [{ name: values.pool, ipipMode: "Never", vxlanMode: "Always" }],
  backend: "vxlan",
};
const planned = plan(obs, target);
if (!planned.ok) throw new Error(`the plan was refused: ${planned.reason}`);
const [planMedian, planMax] = timed(() => plan(obs, target));
const [waitMedian, waitMax] = timed(() => [unsettled(obs), progressOf(obs)]);
const f = (ms: number): string => ms.toFixed(2);
console.log(
  [
    obs.nodes.length,
    RUNS,
    `${f(planMedian)} / ${f(planMax)}`,
    `${f(waitMedian)} / ${f(waitMax)}`,
    bytes,
  ].join("\t"),
);
