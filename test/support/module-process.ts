// calico_encap_migrate as its own process, the way Ansible runs a module (dist/src/cli.js module <args file>), with
// its progress lines (stderr, at the verbosity given) handed over as they come: to act beside the run at one of them
// (stop the API server: waits.test, least-privilege.test), or to SIGKILL it as a step's write goes out or while it
// waits after one (interrupt.test, least-privilege.test).

import { expect } from "chai";
import { execa, type ResultPromise } from "execa";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { REPO, type TaskResult } from "./ansible.js";
import type { Lab } from "./lab.js";

/** Starts the module process on `args` at `verbosity`; each line it logs goes to `onLine` as it comes. */
function spawnMigrate(
  args: Record<string, unknown>,
  verbosity: number,
  onLine: (line: string, child: ResultPromise<{ reject: false }>) => void,
): ResultPromise<{ reject: false }> {
  const file = join(mkdtempSync(join(tmpdir(), "calico-encap-run-")), "args.json");
  writeFileSync(file, JSON.stringify({ ...args, _ansible_verbosity: verbosity }));
  const child = execa(
    "node",
    [join(REPO, "dist", "src", "cli.js"), "module", "calico_encap_migrate", file],
    { reject: false },
  );
  createInterface({ input: child.stderr }).on("line", (line) => onLine(line, child));
  return child;
}

export interface Run {
  result: TaskResult & { steps?: { title: string; settled?: boolean }[]; rolled_back?: boolean };
  lines: string[];
  /** What `act` returned (the milliseconds the apiserver was stopped, for runPausing). */
  acted: number;
}

/** Runs the module at verbosity 1; at the first progress line matching `at`, runs `act` beside it, once. */
export async function runActing(
  args: Record<string, unknown>,
  at: RegExp,
  act: () => Promise<number>,
): Promise<Run> {
  const lines: string[] = [];
  let acting: Promise<number> | null = null;
  const r = await spawnMigrate(args, 1, (line) => {
    lines.push(line);
    if (acting === null && at.test(line)) acting = act();
  });
  const acted = acting === null ? 0 : await (acting as Promise<number>);
  expect(
    acting,
    `the run was to be acted on at ${at}; it logged:\n${lines.join("\n")}`,
  ).to.not.equal(null);
  return { result: JSON.parse(r.stdout) as Run["result"], lines, acted };
}

/** Runs the module; at the first line matching `at`, stops the apiserver for pauseMs (and runs `paused` meanwhile). */
export async function runPausing(
  lab: Lab,
  args: Record<string, unknown>,
  at: RegExp,
  pauseMs: number,
  paused: () => Promise<void> = () => Promise.resolve(),
): Promise<Run & { pausedMs: number }> {
  const pid = readFileSync(join(lab.state, "run", "kube-apiserver.pid"), "utf8").trim();
  const run = await runActing(args, at, async () => {
    const t0 = Date.now();
    await execa("kill", ["-STOP", pid]);
    try {
      await paused();
      await new Promise((r) => setTimeout(r, Math.max(0, pauseMs - (Date.now() - t0))));
    } finally {
      await execa("kill", ["-CONT", pid]);
    }
    return Date.now() - t0;
  });
  return { ...run, pausedMs: run.acted };
}

/** Killed as its write goes out ("step"), or while it waits after it, at its second poll ("wait"). */
export type Phase = "step" | "wait";

/** When (Date.now()) killed runs logged each step's opening line and its write going out. */
export interface Timeline {
  opened: { title: string; at: number }[];
  written: { title: string; at: number }[];
}

const STEP_LINE = /calico-encap: step \d+\/\d+ '(.*)': writing$/;

/**
 * Runs the module process at verbosity 3 and SIGKILLs it at the step titled `title`, as its write goes out or
 * while it waits after it; adds to the timeline; returns its log. The kill points come from its own lines: "step
 * i/n '<title>': writing" opens a step, the "writing ..." line after it is its write going out, and "observed N
 * nodes ..." is one poll.
 */
export async function runAndKill(
  args: Record<string, unknown>,
  title: string,
  phase: Phase,
  t: Timeline,
): Promise<string[]> {
  const seen: string[] = [];
  let current = "";
  let writes = 0;
  let polls = 0;
  const r = await spawnMigrate(args, 3, (line, child) => {
    seen.push(line);
    const opened = STEP_LINE.exec(line);
    if (opened?.[1] !== undefined) {
      current = opened[1];
      writes = 0;
      polls = 0;
      t.opened.push({ title: current, at: Date.now() });
      return;
    }
    if (/calico-encap: writing /.test(line) && writes++ === 0)
      t.written.push({ title: current, at: Date.now() });
    if (/calico-encap: observed \d+ nodes/.test(line)) polls++;
    const now = current === title && (phase === "step" ? writes === 1 : writes > 0 && polls === 2);
    if (now) child.kill("SIGKILL");
  });
  expect(
    r.signal,
    `the run was to be killed ${phase === "step" ? "as it writes" : "while waiting after"} step '${title}'; it logged:\n${seen.join("\n")}\nand ended with exit code ${r.exitCode} and the result: ${r.stdout}`,
  ).to.equal("SIGKILL");
  return seen;
}
