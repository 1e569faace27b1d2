// calico_encap_migrate's loop: observe, plan, renew the Lease and perform the first write, wait until the cluster
// settles, and again, until the plan is empty. The cluster is the only state, so an interrupted run resumes.
// A read that fails during a wait counts as pending until wait_timeout (the progress line shows the error); on a
// wait that times out it rolls back to the state observed before its first write and verifies it. A failure never
// reads the cluster again to describe itself: it carries the steps done (a written step that did not settle too)
// and the last observation.

import type { ClusterObservation, Target } from "../calico/shared/observation.js";
import type { FelixSet, Step, Write } from "../calico/plan/plan.js";
import { plan, unsettled } from "../calico/plan/plan.js";
import { asBackend, podsBackend } from "../calico/shared/routing.js";
import { vtepsMovedAtSwitch } from "../calico/plan/vteps.js";
import { convergedNodes, progressOf } from "../calico/plan/progress.js";
import {
  clusterRoutesEnabled,
  poolsNeedingClusterRoutes,
} from "../calico/shared/cluster-routes.js";
import {
  felixRestartPending,
  laterRestart,
  restartAfterTunnelChange,
  restartAfterWrite,
  type FelixRestart,
  tunnelsChanged,
} from "../calico/plan/felix-restart.js";
import type { Clock } from "../cluster/lock.js";
import { LockLost } from "../cluster/lock.js";

export type { Clock };

/** One poll: the Lease renewed and the cluster read, each error kept (LockLost is thrown instead). */
export interface Poll {
  obs?: ClusterObservation;
  observeError?: unknown;
  renewError?: unknown;
}

export interface MigrationIo {
  observe(): Promise<ClusterObservation>;
  /** Renews the Lease and observes in one round trip where it can; without it, renew() then observe(). */
  poll?(): Promise<Poll>;
  write(w: Write): Promise<void>;
  lock: {
    acquire(): Promise<void>;
    renew(): Promise<void>;
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
  /** Seconds from the write until the cluster settled (or until the run stopped waiting). */
  seconds: number;
  /** false: written, but the cluster did not settle after it. */
  settled: boolean;
  /** When the write was made (ISO 8601, UTC); absent for a wait-only step. */
  written_at?: string;
  /** A write that failed: each command it sent, the failed one last. */
  sent?: string[];
  /** A write that failed: what came back from the command that failed. */
  error?: string;
}

/**
 * A write that failed once it had begun: some of its commands may have changed the cluster (a timed-out one may have
 * been applied too). The step is reported with what was sent and what came back, and the run rolls back.
 */
export class WriteFailed extends Error {
  constructor(
    /** What the write's commands did, in order, the failed one last. */
    readonly sent: string[],
    /** What came back from the failed command. */
    readonly error: string,
  ) {
    super(`${error} (sent: ${sent.join("; ")})`);
  }
}

export class MigrationFailed extends Error {
  constructor(
    message: string,
    readonly steps: StepDone[],
    readonly rolledBack: boolean,
    /** The last observation this run made (null if none succeeded). */
    readonly last: ClusterObservation | null,
    readonly warnings: string[] = [],
  ) {
    super(message);
  }
}

/** An error's message on one line, short enough for a progress line. */
export function brief(e: unknown, max = 400): string {
  const text = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, " ").trim();
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

/** The target that puts the cluster back as it was observed. */
export function targetOf(obs: ClusterObservation, names: readonly string[]): Target {
  return {
    pools: obs.live.pools
      .filter((p) => names.includes(p.name))
      .map((p) => ({ name: p.name, ipipMode: p.ipipMode, vxlanMode: p.vxlanMode })),
    backend: asBackend(podsBackend(obs)),
  };
}

/** "2 of 3 nodes converged": nodes calico-node runs on that are ready and have every tunnel address they need. */
function converged(obs: ClusterObservation): string {
  const { done, of } = convergedNodes(obs);
  return `${done} of ${of} nodes converged`;
}

interface Settled {
  /** The last observation that succeeded (fresh when pending is empty). */
  obs: ClusterObservation | null;
  pending: string[];
}

/** What the wait after a write watches for Felix's restarts (felix-restart.ts). */
interface AfterWrite {
  /** The observation before the write: tunnel addresses that change from it restart Felix on their node. */
  before: ClusterObservation | null;
  write: Write | null;
}

/**
 * Waits until nothing is pending on two polls in a row, the first a wait_sleep after the write. Each poll renews
 * the Lease and reads the cluster; a failed renewal or read counts as pending (LockLost ends the run). Felix's
 * restart after the write (its encapsulation flags) or after a tunnel address changed counts as pending for
 * FELIX_RESTART_SECONDS from when the change was seen, FELIX_TAKEOVER_SECONDS after programClusterRoutes is turned on
 * (felix-restart.ts).
 * Logs each poll at -v: "<label>: 2 of 3 nodes converged (12 s); waiting for ...".
 */
async function settle(
  io: MigrationIo,
  o: WaitOptions,
  label: string,
  after: AfterWrite = { before: null, write: null },
): Promise<Settled> {
  const start = io.clock.now();
  /** The wait ends after wait_timeout without progress (progress.ts): from its start, then from each new high. */
  let progressedAt = start;
  let best: number | null = null;
  let calm = 0;
  let obs: ClusterObservation | null = null;
  let previous = after.before;
  let restart: FelixRestart | null = restartAfterWrite(after.write, start);
  for (;;) {
    await io.clock.sleep(o.waitSleepSeconds * 1000);
    const pending: string[] = [];
    const polled = io.clock.now();
    const p = io.poll ? await io.poll() : await renewThenObserve(io);
    io.log(3, `poll: the Lease renewed and the cluster read in ${io.clock.now() - polled} ms`);
    if (p.renewError !== undefined && p.renewError !== null)
      pending.push(`renewing the Lease failed: ${brief(p.renewError)}`);
    let state: string;
    if (p.obs) {
      obs = p.obs;
      pending.push(...unsettled(obs));
      state = converged(obs);
      const progress = progressOf(obs);
      if (best !== null && progress > best) progressedAt = io.clock.now();
      best = Math.max(best ?? progress, progress);
      const changed = previous ? tunnelsChanged(previous.nodes, obs.nodes) : [];
      if (changed.length)
        restart = laterRestart(restart, restartAfterTunnelChange(changed, io.clock.now()));
      previous = obs;
    } else {
      pending.push(`reading the cluster failed: ${brief(p.observeError)}`);
      state = "cluster not read";
    }
    const felix = felixRestartPending(restart, io.clock.now());
    if (felix) pending.push(felix);
    const seconds = Math.round((io.clock.now() - start) / 1000);
    const still = Math.round((io.clock.now() - progressedAt) / 1000);
    io.log(
      1,
      `${label}: ${state} (${seconds} s)${progressedAt > start && pending.length ? `, the last progress ${still} s ago` : ""}${pending.length ? `; waiting for ${pending.join("; ")}` : ""}`,
    );
    calm = pending.length === 0 ? calm + 1 : 0;
    if (calm >= 2 || io.clock.now() >= progressedAt + o.waitTimeoutSeconds * 1000)
      return { obs, pending };
  }
}

/** A poll in two round trips, for an io without poll(): the renewal, then the observation. */
async function renewThenObserve(io: MigrationIo): Promise<Poll> {
  let renewError: unknown = null;
  try {
    await io.lock.renew();
  } catch (e) {
    if (e instanceof LockLost) throw e;
    renewError = e;
  }
  try {
    return { obs: await io.observe(), renewError };
  } catch (e) {
    return { observeError: e, renewError };
  }
}

/** Runs fn until it succeeds, every wait_sleep for up to wait_timeout, logging each failure; LockLost ends it. */
async function patiently<T>(
  io: MigrationIo,
  o: WaitOptions,
  what: string,
  fn: () => Promise<T>,
): Promise<T> {
  const start = io.clock.now();
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof LockLost) throw e;
      const seconds = Math.round((io.clock.now() - start) / 1000);
      if (io.clock.now() - start >= o.waitTimeoutSeconds * 1000)
        throw new Error(`${what} kept failing for wait_timeout (${seconds} s): ${brief(e)}`);
      io.log(1, `${what} failed (${seconds} s), retrying until wait_timeout: ${brief(e)}`);
      await io.clock.sleep(o.waitSleepSeconds * 1000);
    }
  }
}

/** The Lease renewed on its own (one round trip), right before a write; its time logged at -vvv. */
async function renewBeforeWrite(io: MigrationIo, o: WaitOptions): Promise<void> {
  const t = io.clock.now();
  await patiently(io, o, "renewing the Lease", () => io.lock.renew());
  io.log(3, `renewed the Lease before the write in ${io.clock.now() - t} ms`);
}

/**
 * Renews the Lease right before the write (a run that lost it never writes), then writes, with its step in `done`
 * from the moment it is sent: settled or not, failed or not, it is reported. A write that fails keeps in its step
 * what it sent and what came back, and that error is returned (null when it succeeded); LockLost is thrown.
 */
async function writeStep(
  io: MigrationIo,
  o: WaitOptions,
  title: string,
  write: Write,
  done: StepDone[],
  t0: number,
): Promise<{ entry: StepDone; error: string | null }> {
  await renewBeforeWrite(io, o);
  const entry: StepDone = {
    title,
    write,
    seconds: 0,
    settled: false,
    written_at: new Date(t0).toISOString(),
  };
  done.push(entry);
  try {
    await io.write(write);
    return { entry, error: null };
  } catch (e) {
    if (e instanceof LockLost) throw e;
    entry.seconds = (io.clock.now() - t0) / 1000;
    entry.sent = e instanceof WriteFailed ? e.sent : [];
    entry.error = e instanceof WriteFailed ? e.error : brief(e);
    return { entry, error: entry.error };
  }
}

/** What a run keeps beside its steps: the last observation, and the warnings its result carries. */
interface Track {
  seen(obs: ClusterObservation): void;
  /** What a step relied on and did not hold, said in the result (the migration goes on). */
  warn(msg: string): void;
}

type Driven =
  | {
      ok: true;
      obs: ClusterObservation;
      /** The step the run stopped before (stop_before), unwritten; absent when the plan was done. */
      stoppedBefore?: Step;
    }
  | {
      ok: false;
      pending: string[];
      step: string;
      obs: ClusterObservation | null;
      /** The step's write failed as it was sent, rather than the cluster not settling after it. */
      writeFailed?: boolean;
      /** After `step` settled, the plan from the cluster as it then was is refused: why. */
      refused?: string;
    };

async function drive(
  io: MigrationIo,
  target: Target,
  o: WaitOptions,
  done: StepDone[],
  /** "" going forward, "rollback " going back. */
  label: string,
  /** The settled observation to plan from; null reads the cluster first (patiently). */
  from: ClusterObservation | null,
  track: Track,
  /** Stop before a write it says yes to (stop_before), with the cluster settled; null: never. */
  stopBefore: ((w: Write) => boolean) | null = null,
): Promise<Driven> {
  let obs = from ?? (await patiently(io, o, `${label}reading the cluster`, () => io.observe()));
  track.seen(obs);
  const doneBefore = done.length;
  for (let i = 0; i < 20; i++) {
    const p = plan(obs, target);
    // Refused before this drive wrote anything: nothing to undo. Refused after a write (the cluster changed under
    // the run, e.g. a node joined on the tunnel pool's network): the run rolls back like a step that did not settle.
    if (!p.ok && done.length === doneBefore) throw new MigrationFailed(p.reason, done, false, obs);
    if (!p.ok)
      return {
        ok: false,
        pending: [],
        step: done[done.length - 1]?.title ?? "",
        obs,
        refused: p.reason,
      };
    const step: Step | undefined = p.steps.find((s) => s.write !== null) ?? p.steps[0];
    if (!step) return { ok: true, obs };
    if (step.write && stopBefore?.(step.write)) {
      io.log(1, `stopping before step '${step.title}' (stop_before)`);
      return { ok: true, obs, stoppedBefore: step };
    }
    const writes = p.steps.filter((s) => s.write !== null).length;
    const stepLabel = `${label}step ${done.length + 1}/${done.length + Math.max(writes, 1)} '${step.title}'`;
    const t0 = io.clock.now();
    let entry: StepDone | null = null;
    if (step.write) {
      io.log(1, `${stepLabel}: writing`);
      const sent = await writeStep(io, o, step.title, step.write, done, t0);
      entry = sent.entry;
      if (sent.error !== null) {
        io.log(1, `${stepLabel}: the write failed: ${sent.error}`);
        return {
          ok: false,
          pending: [`its write failed (${sent.error})`],
          step: step.title,
          obs: null,
          writeFailed: true,
        };
      }
    }
    let settled: Settled;
    try {
      settled = await settle(io, o, stepLabel, { before: obs, write: step.write });
    } finally {
      if (entry) entry.seconds = (io.clock.now() - t0) / 1000;
    }
    if (settled.obs) track.seen(settled.obs);
    if (settled.pending.length || !settled.obs)
      return { ok: false, pending: settled.pending, step: step.title, obs: settled.obs };
    if (entry) entry.settled = true;
    const moved = vtepsMovedAtSwitch(step.write, obs, settled.obs);
    if (moved) track.warn(moved);
    obs = settled.obs;
  }
  throw new MigrationFailed(
    "the plan did not finish in 20 steps; this is a bug in calico_encap_migrate",
    done,
    false,
    obs,
  );
}

/**
 * Puts FelixConfiguration default's ipipEnabled, vxlanEnabled and programClusterRoutes back exactly as they were
 * (unset or explicit), except a programClusterRoutes this run turned on while a pool uses IPIP: that stays on, with
 * a warning (poolsNeedingClusterRoutes). Its step is in `done` once its write is sent, failed or not.
 */
async function restoreFelix(
  io: MigrationIo,
  initial: ClusterObservation,
  now: ClusterObservation,
  o: WaitOptions,
  done: StepDone[],
  track: Track,
): Promise<{ pending: string[]; writeFailed?: boolean; keptClusterRoutes?: boolean }> {
  const is = now.live.felixDefault ?? {};
  const was = initial.live.felixDefault ?? {};
  const set: FelixSet = {};
  for (const k of ["ipipEnabled", "vxlanEnabled"] as const)
    if (is[k] !== was[k]) set[k] = was[k] ?? null;
  const holding = poolsNeedingClusterRoutes(now.live.pools);
  const keptClusterRoutes =
    is.programClusterRoutes !== was.programClusterRoutes &&
    clusterRoutesEnabled(is) &&
    holding.length > 0;
  if (is.programClusterRoutes !== was.programClusterRoutes) {
    if (keptClusterRoutes)
      track.warn(
        `The rollback left programClusterRoutes: Enabled in FelixConfiguration default, which this run had turned on: pool(s) ${holding.join(", ")} use IPIP, and turning it off makes Felix delete their routes, which BIRD re-adds only at its next kernel scan (up to 2 s without a route). Felix and BIRD both program the same routes while it is on, and Kubespray's next run keeps it. To turn it off when a gap of up to 2 s is acceptable: calicoctl patch felixconfiguration default -p '{"spec":{"programClusterRoutes":null}}'.`,
      );
    else set.programClusterRoutes = was.programClusterRoutes ?? null;
  }
  if (Object.keys(set).length === 0) return { pending: [], keptClusterRoutes };
  const t0 = io.clock.now();
  const write: Write = { kind: "felix", set };
  const label = "rollback: restoring FelixConfiguration default";
  const { entry, error } = await writeStep(
    io,
    o,
    "Restore FelixConfiguration default as it was",
    write,
    done,
    t0,
  );
  if (error !== null) {
    io.log(1, `${label}: the write failed: ${error}`);
    return { pending: [`its write failed (${error})`], writeFailed: true };
  }
  let settled: Settled;
  try {
    settled = await settle(io, o, label, { before: now, write });
  } finally {
    entry.seconds = (io.clock.now() - t0) / 1000;
  }
  if (settled.obs) track.seen(settled.obs);
  entry.settled = settled.pending.length === 0;
  return { pending: settled.pending, keptClusterRoutes };
}

export interface MigrationRun {
  changed: boolean;
  /** The step the run stopped before (stop_before), unwritten; absent when it went to the end. */
  stoppedBefore?: Step;
  steps: StepDone[];
  initial: ClusterObservation;
  final: ClusterObservation;
  /** Said in the result: e.g. a Lease that could not be released. */
  warnings: string[];
}

/**
 * Rolls back to `initial` after the forward step failed; returns the verdict and whether it was verified. Never
 * throws: a rollback that stops (a lost Lease included) says why in its verdict, and its steps stay in `back`.
 */
async function rollBack(
  io: MigrationIo,
  initial: ClusterObservation,
  target: Target,
  o: WaitOptions,
  back: StepDone[],
  track: Track,
): Promise<{ verified: boolean; verdict: string }> {
  try {
    const names = target.pools.map((p) => p.name);
    const undo = await drive(io, targetOf(initial, names), o, back, "rollback ", null, track);
    if (!undo.ok)
      return {
        verified: false,
        verdict: undo.refused
          ? `the rollback stopped after step "${undo.step}": the cluster changed under it and going on is refused: ${undo.refused}`
          : `the rollback did not settle either (${undo.pending.join("; ")})`,
      };
    const felix = await restoreFelix(io, initial, undo.obs, o, back, track);
    if (felix.writeFailed)
      return {
        verified: false,
        verdict: `the rollback stopped restoring FelixConfiguration default: ${felix.pending.join("; ")}; what it sent is in its step (sent, error)`,
      };
    if (felix.pending.length)
      return {
        verified: false,
        verdict: `the rollback did not settle after restoring FelixConfiguration default (${felix.pending.join("; ")})`,
      };
    return {
      verified: true,
      verdict: felix.keptClusterRoutes
        ? "rolled back to the state before the first write and verified it, but for programClusterRoutes, left Enabled (see the warning)"
        : "rolled back to the state before the first write and verified it",
    };
  } catch (e) {
    // A lost Lease too: this run writes nothing more, and the result keeps what the rollback wrote.
    return { verified: false, verdict: `the rollback stopped: ${brief(e, 2000)}` };
  }
}

async function run(
  io: MigrationIo,
  target: Target,
  o: WaitOptions,
  steps: StepDone[],
  track: Track,
  stopBefore: ((w: Write) => boolean) | null,
): Promise<Omit<MigrationRun, "warnings">> {
  const before = await settle(io, o, "before the first write");
  if (before.obs) track.seen(before.obs);
  if (before.pending.length || !before.obs)
    throw new MigrationFailed(
      `the cluster did not settle within wait_timeout before any change (${before.pending.join("; ")}); nothing was written. Fix those nodes, then re-run.`,
      steps,
      false,
      before.obs,
    );
  const initial = before.obs;
  const forward = await drive(io, target, o, steps, "", initial, track, stopBefore);
  if (forward.ok)
    return {
      changed: steps.length > 0,
      steps,
      initial,
      final: forward.obs,
      ...(forward.stoppedBefore ? { stoppedBefore: forward.stoppedBefore } : {}),
    };
  const back: StepDone[] = [];
  const undo = await rollBack(io, initial, target, o, back, track);
  throw new MigrationFailed(
    forward.refused
      ? `after step "${forward.step}" the cluster changed and the next step is refused: ${forward.refused} ${undo.verdict}.`
      : forward.writeFailed
        ? `step "${forward.step}": ${forward.pending.join("; ")}; what it sent is in its step (sent, error). ${undo.verdict}.`
        : `step "${forward.step}" did not converge within wait_timeout: ${forward.pending.join("; ")}. ${undo.verdict}.`,
    [...steps, ...back],
    undo.verified,
    null,
  );
}

/**
 * Runs the migration (not in check mode), to the end or, with `stopBefore`, up to the first write it says yes to,
 * settled, which it leaves unwritten. Throws MigrationFailed with what was done, whether it rolled back and the last
 * observation; LockRefused when another run holds the Lease (nothing written).
 */
export async function migrate(
  io: MigrationIo,
  target: Target,
  o: WaitOptions,
  stopBefore: ((w: Write) => boolean) | null = null,
): Promise<MigrationRun> {
  await io.lock.acquire();
  const steps: StepDone[] = [];
  let last: ClusterObservation | null = null;
  const warnings: string[] = [];
  const track: Track = {
    seen: (obs) => {
      last = obs;
    },
    warn: (msg) => warnings.push(msg),
  };
  let outcome:
    { ok: true; run: Omit<MigrationRun, "warnings"> } | { ok: false; e: MigrationFailed };
  try {
    outcome = { ok: true, run: await run(io, target, o, steps, track, stopBefore) };
  } catch (e) {
    const failed =
      e instanceof MigrationFailed
        ? new MigrationFailed(e.message, e.steps, e.rolledBack, e.last ?? last, e.warnings)
        : new MigrationFailed(
            e instanceof LockLost ? e.message : `the run stopped: ${brief(e, 2000)}`,
            steps,
            false,
            last,
          );
    outcome = { ok: false, e: failed };
  }
  try {
    await io.lock.release();
  } catch (e) {
    warnings.push(
      `The Lease could not be released (${brief(e)}); another run takes it over once it has seen it unrenewed for its duration.`,
    );
  }
  if (outcome.ok) return { ...outcome.run, warnings };
  outcome.e.warnings.push(...warnings);
  throw outcome.e;
}
