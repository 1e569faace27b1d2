// The step loop: plan from the settled cluster, write the first step, wait until it settles, and again, until the
// plan is empty, a step does not settle, or the step stop_before names is next (planUntil decides which; the loop
// obeys). Forward and rollback alike.

import type { StopBefore } from "../calico/plan/fallback-routes.js";
import { planUntil } from "../calico/plan/fallback-routes.js";
import type { ClusterObservation, Target } from "../calico/shared/observation.js";
import type { Step } from "../calico/plan/plan.js";
import { plan } from "../calico/plan/plan.js";
import { vtepsMovedAtSwitch } from "../calico/plan/vteps.js";
import {
  MigrationFailed,
  type MigrationIo,
  type StepDone,
  type Track,
  type WaitOptions,
} from "./types.js";
import { patiently, renewedObservation, settle, type Settled } from "./waits.js";
import { writeStep } from "./write-step.js";

export type Driven =
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

export async function drive(
  io: MigrationIo,
  target: Target,
  o: WaitOptions,
  done: StepDone[],
  /** "" going forward, "rollback " going back. */
  label: string,
  /** The settled observation to plan from; null reads the cluster first (patiently, renewing the Lease each try). */
  from: ClusterObservation | null,
  track: Track,
  /** stop_before: stop before the step planUntil names, with the cluster settled; null: never. */
  stopBefore: StopBefore | null = null,
): Promise<Driven> {
  let obs =
    from ?? (await patiently(io, o, `${label}reading the cluster`, () => renewedObservation(io)));
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
    // The next step of the plan up to its stop: the first write before the stop, else the stop, else a wait.
    const until = planUntil(p.steps, stopBefore);
    const step: Step | undefined =
      until.steps.find((s) => s.write !== null) ?? until.stoppedBefore ?? until.steps[0];
    if (!step) return { ok: true, obs };
    if (step === until.stoppedBefore) {
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
