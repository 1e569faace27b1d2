// Killing calico_encap_migrate during each step (as its write goes out) and during each wait (while it polls),
// in both directions, then re-running it, on the real calico-node (v3.31.0 under the lab kubelet): every re-run
// completes from what the cluster shows, calico-node's maxUnavailable is back at Kubespray's 20% with no held
// annotation, and the probes lost (pod to pod and host to remote pod) fit in the pool switch window of the same
// run. The kill points come from the module's own log lines (module mode at verbosity 3): a group of
// "writing ..." lines is one step's write, and "observed N nodes ..." is one poll.

import { expect } from "chai";
import { execa } from "execa";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { plan } from "../../src/calico/plan.js";
import { HELD_MAX_UNAVAILABLE, heldValue } from "../../src/calico/rollout.js";
import type { ClusterObservation } from "../../src/calico/observation.js";
import { REPO, runTask } from "../support/ansible.js";
import type { Lab } from "../support/lab.js";
import {
  kubectl,
  labDown,
  labUp,
  migrateArgs,
  poolSwitchWindowMs,
  readProber,
  resetProber,
  nodesStatus,
  startProber,
  waitUntil,
} from "../support/lab.js";
import type { Encap } from "../support/sim-cluster.js";
import { applyWrite, converge, modes, start, target } from "../support/sim-cluster.js";

type Direction = "to VXLAN" | "to IPIP";
const STATES: Record<
  Direction,
  { from: [Encap, "bird" | "vxlan"]; to: [Encap, "bird" | "vxlan"] }
> = {
  "to VXLAN": { from: ["IPIP Always", "bird"], to: ["VXLAN Always", "vxlan"] },
  "to IPIP": { from: ["VXLAN Always", "vxlan"], to: ["IPIP Always", "bird"] },
};

/** The steps with a write the executor takes in a direction, by the pure planner on the simulated cluster. */
function writeSteps(d: Direction): string[] {
  const { from, to } = STATES[d];
  let obs: ClusterObservation = start(from[0], from[1], "explicit");
  const goal = target(to[0], to[1]);
  const titles: string[] = [];
  for (let i = 0; i < 20; i++) {
    const p = plan(obs, goal);
    const step = p.ok ? p.steps.find((s) => s.write !== null) : undefined;
    if (!step?.write) return titles;
    titles.push(step.title);
    obs = converge(applyWrite(obs, step.write));
  }
  throw new Error("the plan did not finish");
}

interface KillPoint {
  direction: Direction;
  step: number;
  title: string;
  /** null: a plain run, where one direction has more kill points than the other, so directions alternate. */
  phase: "step" | "wait" | null;
}

/** Every (direction, step, phase), ordered so that each point migrates the opposite way of the one before. */
function killPoints(): KillPoint[] {
  const per = (d: Direction): KillPoint[] =>
    writeSteps(d).flatMap((title, i) =>
      (["step", "wait"] as const).map((phase) => ({ direction: d, step: i + 1, title, phase })),
    );
  const vx = per("to VXLAN");
  const ip = per("to IPIP");
  const out: KillPoint[] = [];
  for (let i = 0; i < Math.max(vx.length, ip.length); i++) {
    out.push(vx[i] ?? { direction: "to VXLAN", step: 0, title: "", phase: null });
    out.push(ip[i] ?? { direction: "to IPIP", step: 0, title: "", phase: null });
  }
  return out;
}

function args(lab: Lab, d: Direction): Record<string, unknown> {
  const [encap, backend] = STATES[d].to;
  return {
    ...migrateArgs(lab),
    ipip_mode: modes(encap).ipipMode,
    vxlan_mode: modes(encap).vxlanMode,
    network_backend: backend,
  };
}

/**
 * Sets the Felix flags to the explicit values Kubespray 2.18 writes for the current encapsulation (an effective
 * no-op for calico-node), so each run starts where writeSteps' simulation starts, whatever the last run unset.
 */
async function pinFelix(lab: Lab, d: Direction): Promise<void> {
  const ipip = STATES[d].from[0].startsWith("IPIP");
  await kubectl(
    lab,
    "patch",
    "felixconfigurations.crd.projectcalico.org",
    "default",
    "--type",
    "merge",
    "-p",
    JSON.stringify({ spec: { ipipEnabled: ipip, vxlanEnabled: !ipip } }),
  );
}

/** What a killed run logged, and when (Date.now()) each write group began. */
interface Killed {
  lines: string[];
  /** groupAt[n - 1]: when the first "writing" line of step n's write was logged. */
  groupAt: number[];
}

/** The calico-node DaemonSet's maxUnavailable and the annotation that holds the one the migration found. */
async function rollout(lab: Lab): Promise<{ maxUnavailable: unknown; held: string | undefined }> {
  const ds = JSON.parse(
    await kubectl(lab, "-n", "kube-system", "get", "daemonset", "calico-node", "-o", "json"),
  ) as {
    metadata: { annotations?: Record<string, string> };
    spec: { updateStrategy: { rollingUpdate?: { maxUnavailable?: unknown } } };
  };
  return {
    maxUnavailable: ds.spec.updateStrategy.rollingUpdate?.maxUnavailable,
    held: ds.metadata.annotations?.[HELD_MAX_UNAVAILABLE],
  };
}

/**
 * The window the probes lost in a case are held to, in ms, from the same case's runs. The pool switch is the one
 * step that loses probes on the real calico-node (real-calico-node.test.ts): from its write until every node
 * routes the pool the new way, inside that step. When the re-run switched the pool, its own pool switch step
 * (poolSwitchWindowMs). When the killed run had switched it: from the killed run's pool write until that step's
 * wait was over, i.e. the next step's write in the killed run, or, killed before that, the end of the re-run
 * (which also covers the Lease takeover and the re-run's own waits), plus 1 s as poolSwitchWindowMs adds.
 */
function lossWindowMs(
  poolStep: number,
  killed: Killed | null,
  rerunSteps: { title: string; seconds: number }[],
  rerunEnd: number,
): { ms: number; measured: string } {
  if (rerunSteps.some((s) => /Switch IPPool/.test(s.title)))
    return { ms: poolSwitchWindowMs(rerunSteps), measured: "the re-run's pool switch step + 1 s" };
  const written = killed?.groupAt[poolStep - 1];
  if (written === undefined)
    throw new Error(`neither run switched the pool: ${JSON.stringify(rerunSteps)}`);
  const next = killed?.groupAt[poolStep];
  return next === undefined
    ? {
        ms: rerunEnd - written + 1000,
        measured: "killed run's pool write to the re-run's end + 1 s",
      }
    : {
        ms: next - written + 1000,
        measured: "killed run's pool switch step (write to next write) + 1 s",
      };
}

/** Runs the module process and SIGKILLs it at the kill point; resolves with what it had logged. */
async function runAndKill(lab: Lab, k: KillPoint): Promise<Killed> {
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-kill-"));
  const file = join(dir, "args.json");
  writeFileSync(file, JSON.stringify({ ...args(lab, k.direction), _ansible_verbosity: 3 }));
  const child = execa(
    "node",
    [join(REPO, "dist", "src", "cli.js"), "module", "calico_encap_migrate", file],
    {
      reject: false,
    },
  );
  const seen: string[] = [];
  const groupAt: number[] = [];
  let group = 0;
  let inWrites = false;
  let pollsAfter = 0;
  const lines = createInterface({ input: child.stderr });
  lines.on("line", (line) => {
    seen.push(line);
    const writing = /calico-encap: writing /.test(line);
    if (writing && !inWrites) {
      group++;
      groupAt.push(Date.now());
      pollsAfter = 0;
    }
    inWrites = writing;
    if (/calico-encap: observed \d+ nodes/.test(line) && group === k.step) pollsAfter++;
    const now =
      (k.phase === "step" && writing && group === k.step) ||
      (k.phase === "wait" && group === k.step && pollsAfter === 2);
    if (now) child.kill("SIGKILL");
  });
  const r = await child;
  expect(
    r.signal,
    `the run was to be killed ${k.phase === "step" ? "at" : "while waiting after"} step ${k.step}; it logged:\n${seen.join("\n")}`,
  ).to.equal("SIGKILL");
  return { lines: seen, groupAt };
}

describe("calico_encap_migrate killed during each step and each wait, then re-run", function () {
  this.timeout(900000);
  let lab: Lab;
  before(async () => {
    lab = await labUp("kubespray-2.18", 3);
    await waitUntil("calico-node ready with BIRD", () => {
      const s = nodesStatus(lab).summary;
      return s.podsReady === 3 && s.birdRunning === 3;
    });
    // The agents stop by themselves after --max-seconds: room for the whole file.
    await startProber(lab, 3600);
  });
  after(labDown);

  const points = killPoints();
  it("has a kill point for every step and wait of both directions", () => {
    const bird = writeSteps("to IPIP");
    expect(bird[0]).to.match(/^Let calico-node roll on every node at once/);
    expect(bird.at(-1)).to.equal("Restore the calico-node DaemonSet's maxUnavailable to 20%");
    for (const d of ["to VXLAN", "to IPIP"] as Direction[]) {
      const steps = writeSteps(d);
      expect(steps.length, d).to.be.at.least(3);
      for (const phase of ["step", "wait"])
        expect(
          points.filter((p) => p.direction === d && p.phase === phase).map((p) => p.title),
        ).to.deep.equal(steps);
    }
  });

  for (const k of points) {
    const name =
      k.phase === null
        ? `${k.direction}, not killed (to alternate directions)`
        : `${k.direction}: killed ${k.phase === "step" ? "as it writes" : "while it waits after"} step ${k.step} (${k.title}), then re-run`;
    it(name, async () => {
      await pinFelix(lab, k.direction);
      await resetProber(lab);
      const steps = writeSteps(k.direction);
      const poolStep = steps.findIndex((t) => /Switch IPPool/.test(t)) + 1;
      const killed = k.phase !== null ? await runAndKill(lab, k) : null;
      // Towards bird the first write sets maxUnavailable 100% and holds 20% in the annotation; the last puts it
      // back. A run killed after the first write (and before the last) leaves both for the re-run to restore.
      const heldByKill =
        k.direction === "to IPIP" &&
        ((k.phase === "wait" && k.step < steps.length) ||
          (k.phase === "step" && k.step > 1 && k.step < steps.length));
      if (heldByKill)
        expect(
          await rollout(lab),
          "the killed run left calico-node rolling all at once",
        ).to.deep.equal({
          maxUnavailable: "100%",
          held: heldValue("20%"),
        });
      const r = (await runTask({ calico_encap_migrate: args(lab, k.direction) })).result;
      const end = Date.now();
      const p = await readProber(lab);
      expect(r.failed, r.msg).to.not.equal(true);
      const rerun = (r.steps ?? []) as { title: string; seconds: number }[];
      const w = lossWindowMs(poolStep, killed, rerun, end);
      console.log(
        `      ${p.lost} of ${p.sent} probes lost (${p.rate_pps} pps), longest gap ${p.longest_gap_ms} ms; window ${w.ms} ms (${w.measured}); re-run steps ${rerun.map((s) => s.seconds).join(" s, ")} s`,
      );
      const [encap, backend] = STATES[k.direction].to;
      expect(r.migrated_to).to.deep.equal({
        backend,
        pools: [
          {
            name: "default-pool",
            ipip_mode: modes(encap).ipipMode,
            vxlan_mode: modes(encap).vxlanMode,
          },
        ],
      });
      expect(await rollout(lab), "maxUnavailable back at 20%, no held annotation").to.deep.equal({
        maxUnavailable: "20%",
        held: undefined,
      });
      // The lab kubelet's status: the backend each calico-node pod runs, and how many are Ready.
      const s = nodesStatus(lab);
      if (!("kind" in s) || s.kind !== "lab-kubelet") throw new Error("the lab runs the stand-in");
      expect(Object.values(s.nodes).map((n) => n.backend)).to.deep.equal([
        backend,
        backend,
        backend,
      ]);
      expect(s.summary.podsReady).to.equal(3);
      expect(p.longest_gap_ms, "the longest gap fits in the pool switch window").to.be.below(w.ms);
      expect(p.lost, "the loss fits in the pool switch window").to.be.at.most(
        (p.rate_pps * w.ms) / 1000,
      );
    });
  }
});
