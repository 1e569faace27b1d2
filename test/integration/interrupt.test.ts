// Killing calico_encap_migrate during each step (as its write goes out) and during each wait (while it polls),
// in both directions, then re-running it: every re-run completes from what the cluster shows, and the prober's
// longest gap stays within the Felix/BIRD handover window the transition tour bounds. The kill points come
// from the module's own log lines (module mode at verbosity 3): a group of "writing ..." lines is one step's
// write, and "observed N nodes ..." is one poll.

import { expect } from "chai";
import { execa } from "execa";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { plan } from "../../src/calico/plan.js";
import type { ClusterObservation } from "../../src/calico/observation.js";
import { REPO, runTask } from "../support/ansible.js";
import type { Lab } from "../support/lab.js";
import {
  kubectl,
  labDown,
  labUp,
  migrateArgs,
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

/** Runs the module process and SIGKILLs it at the kill point; resolves with what it had logged. */
async function runAndKill(lab: Lab, k: KillPoint): Promise<string[]> {
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
  let group = 0;
  let inWrites = false;
  let pollsAfter = 0;
  const lines = createInterface({ input: child.stderr });
  lines.on("line", (line) => {
    seen.push(line);
    const writing = /calico-encap: writing /.test(line);
    if (writing && !inWrites) {
      group++;
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
  return seen;
}

describe("calico_encap_migrate killed during each step and each wait, then re-run", function () {
  this.timeout(900000);
  let lab: Lab;
  before(async () => {
    lab = await labUp("kubespray-2.18", 3, "standin"); // STILL_ON_STANDIN (test/support/lab.ts)
    await waitUntil("calico-node ready with BIRD", () => {
      const s = nodesStatus(lab).summary;
      return s.podsReady === 3 && s.birdRunning === 3;
    });
    await startProber(lab);
  });
  after(labDown);

  const points = killPoints();
  it("has a kill point for every step and wait of both directions", () => {
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
      if (k.phase !== null) await runAndKill(lab, k);
      const r = (await runTask({ calico_encap_migrate: args(lab, k.direction) })).result;
      const p = await readProber(lab);
      console.log(`      ${p.lost} of ${p.sent} probes lost, longest gap ${p.longest_gap_ms} ms`);
      expect(r.failed, r.msg).to.not.equal(true);
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
      expect(p.longest_gap_ms, "the handover window stays short").to.be.below(2000);
    });
  }
});
