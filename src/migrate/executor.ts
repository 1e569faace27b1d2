// calico_encap_migrate's loop: observe, plan, perform the first write, wait until the cluster settles,
// and again, until the plan is empty. The cluster is the only state, so an interrupted run resumes.
// On a wait that times out it rolls back to the state observed before its first write and verifies it.

import type { ClusterObservation, Target } from "../calico/observation.js";
import type { Step, Write } from "../calico/plan.js";
import { plan, runningBackend, unsettled } from "../calico/plan.js";
import type { Backend } from "../calico/model.js";
import { missingTunnels } from "../calico/tunnels.js";
import { LockLost } from "../cluster/lock.js";

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export interface MigrationIo {
  observe(): Promise<ClusterObservation>;
  write(w: Write): Promise<void>;
  lock: {
    acquire(nowMs: number): Promise<void>;
    renew(nowMs: number): Promise<void>;
    release(): Promise<void>;
  };
  clock: Clock;
  log(verbosity: number, msg: string): void;
}

export interface WaitOptions {
  waitTimeoutSeconds: number;
  waitSleepSeconds: number;
}

export interface StepDone {
  title: string;
  write: Write | null;
  /** Seconds from the write until the cluster settled. */
  seconds: number;
}

export class MigrationFailed extends Error {
  constructor(
    message: string,
    readonly steps: StepDone[],
    readonly rolledBack: boolean,
  ) {
    super(message);
  }
}

/** The target that puts the cluster back as it was observed. */
export function targetOf(obs: ClusterObservation, names: readonly string[]): Target {
  return {
    pools: obs.live.pools
      .filter((p) => names.includes(p.name))
      .map((p) => ({ name: p.name, ipipMode: p.ipipMode, vxlanMode: p.vxlanMode })),
    backend: runningBackend(obs.live) as Backend,
  };
}

/** Nodes whose calico-node is ready and that have every tunnel address their pools need. */
function convergedNodes(obs: ClusterObservation): number {
  return obs.nodes.filter(
    (n) => n.calicoNodeReady && missingTunnels(obs.live.pools, [n]).length === 0,
  ).length;
}

/**
 * Waits until nothing is pending on two polls in a row, the first a wait_sleep after the write.
 * Logs each poll at -v: "<label>: 2 of 3 nodes converged (12 s); waiting for ...".
 */
async function settle(
  io: MigrationIo,
  o: WaitOptions,
  label: string,
): Promise<{ obs: ClusterObservation; pending: string[] }> {
  const start = io.clock.now();
  const deadline = start + o.waitTimeoutSeconds * 1000;
  let calm = 0;
  let obs = await io.observe();
  let pending = unsettled(obs);
  for (;;) {
    await io.clock.sleep(o.waitSleepSeconds * 1000);
    await io.lock.renew(io.clock.now());
    obs = await io.observe();
    pending = unsettled(obs);
    const seconds = Math.round((io.clock.now() - start) / 1000);
    io.log(
      1,
      `${label}: ${convergedNodes(obs)} of ${obs.nodes.length} nodes converged (${seconds} s)${pending.length ? `; waiting for ${pending.join("; ")}` : ""}`,
    );
    calm = pending.length === 0 ? calm + 1 : 0;
    if (calm >= 2) return { obs, pending };
    if (io.clock.now() >= deadline) return { obs, pending };
  }
}

async function drive(
  io: MigrationIo,
  target: Target,
  o: WaitOptions,
  done: StepDone[],
  /** "" going forward, "rollback " going back. */
  label: string,
): Promise<{ ok: true } | { ok: false; pending: string[]; step: string }> {
  for (let i = 0; i < 20; i++) {
    const obs = await io.observe();
    const p = plan(obs, target);
    if (!p.ok) throw new MigrationFailed(p.reason, done, false);
    const step: Step | undefined = p.steps.find((s) => s.write !== null) ?? p.steps[0];
    if (!step) return { ok: true };
    const writes = p.steps.filter((s) => s.write !== null).length;
    const stepLabel = `${label}step ${done.length + 1}/${done.length + Math.max(writes, 1)} '${step.title}'`;
    const t0 = io.clock.now();
    if (step.write) {
      io.log(1, `${stepLabel}: writing`);
      await io.write(step.write);
    }
    const settled = await settle(io, o, stepLabel);
    if (settled.pending.length) return { ok: false, pending: settled.pending, step: step.title };
    if (step.write)
      done.push({ title: step.title, write: step.write, seconds: (io.clock.now() - t0) / 1000 });
  }
  throw new MigrationFailed(
    "the plan did not finish in 20 steps; this is a bug in calico_encap_migrate",
    done,
    false,
  );
}

/** Puts FelixConfiguration default's ipipEnabled / vxlanEnabled back exactly as they were (unset or explicit). */
async function restoreFelix(
  io: MigrationIo,
  initial: ClusterObservation,
  o: WaitOptions,
  done: StepDone[],
): Promise<void> {
  const now = (await io.observe()).live.felixDefault ?? {};
  const was = initial.live.felixDefault ?? {};
  const set: { ipipEnabled?: boolean | null; vxlanEnabled?: boolean | null } = {};
  for (const k of ["ipipEnabled", "vxlanEnabled"] as const)
    if (now[k] !== was[k]) set[k] = was[k] ?? null;
  if (Object.keys(set).length === 0) return;
  const t0 = io.clock.now();
  const write: Write = { kind: "felix", set };
  await io.write(write);
  await settle(io, o, "rollback: restoring FelixConfiguration default");
  done.push({
    title: "Restore FelixConfiguration default as it was",
    write,
    seconds: (io.clock.now() - t0) / 1000,
  });
}

export interface MigrationRun {
  changed: boolean;
  steps: StepDone[];
  initial: ClusterObservation;
  final: ClusterObservation;
}

/** Runs the migration (not in check mode). Throws MigrationFailed with what was done and whether it rolled back. */
export async function migrate(
  io: MigrationIo,
  target: Target,
  o: WaitOptions,
): Promise<MigrationRun> {
  await io.lock.acquire(io.clock.now());
  const steps: StepDone[] = [];
  try {
    const before = await settle(io, o, "before the first write");
    if (before.pending.length)
      throw new MigrationFailed(
        `the cluster did not settle within wait_timeout before any change (${before.pending.join("; ")}); nothing was written. Fix those nodes, then re-run.`,
        steps,
        false,
      );
    const initial = before.obs;
    const forward = await drive(io, target, o, steps, "");
    if (!forward.ok) {
      const back: StepDone[] = [];
      const undo = await drive(
        io,
        targetOf(
          initial,
          target.pools.map((p) => p.name),
        ),
        o,
        back,
        "rollback ",
      );
      if (undo.ok) await restoreFelix(io, initial, o, back);
      const verdict = undo.ok
        ? "rolled back to the state before the first write and verified it"
        : `the rollback did not settle either (${undo.pending.join("; ")})`;
      throw new MigrationFailed(
        `step "${forward.step}" did not converge within wait_timeout: ${forward.pending.join("; ")}. ${verdict}.`,
        [...steps, ...back],
        undo.ok,
      );
    }
    return { changed: steps.length > 0, steps, initial, final: await io.observe() };
  } catch (e) {
    if (e instanceof LockLost) throw new MigrationFailed(e.message, steps, false);
    throw e;
  } finally {
    await io.lock.release();
  }
}
