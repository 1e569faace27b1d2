// calico_encap_migrate's loop: observe, plan, renew the Lease and perform the first write, wait until the cluster
// settles, and again, until the plan is empty. The cluster is the only state, so an interrupted run resumes.
// A read that fails during a wait counts as pending until wait_timeout (the progress line shows the error); on a
// wait that times out it rolls back to the state observed before its first write and verifies it. A failure never
// reads the cluster again to describe itself: it carries the steps done (a written step that did not settle too)
// and the last observation.

import type { StopBefore } from "../calico/plan/fallback-routes.js";
import type { ClusterObservation, Target } from "../calico/shared/observation.js";
import { LockLost } from "../cluster/lock.js";
import { drive } from "./drive.js";
import { rollBack } from "./rollback.js";
import {
  brief,
  MigrationFailed,
  type MigrationIo,
  type MigrationRun,
  type StepDone,
  type Track,
  type WaitOptions,
} from "./types.js";
import { settle } from "./waits.js";

async function run(
  io: MigrationIo,
  target: Target,
  o: WaitOptions,
  steps: StepDone[],
  track: Track,
  stopBefore: StopBefore | null,
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
 * Runs the migration (not in check mode), to the end or, with `stopBefore` (stop_before), up to the step planUntil
 * names, settled, which it leaves unwritten. Throws MigrationFailed with what was done, whether it rolled back and
 * the last observation; LockRefused when another run holds the Lease (nothing written).
 */
export async function migrate(
  io: MigrationIo,
  target: Target,
  o: WaitOptions,
  stopBefore: StopBefore | null = null,
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
