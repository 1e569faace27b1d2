// The rollback: back to the state observed before the first write, through the same step loop, then
// FelixConfiguration default restored as it was, and verified.

import type { ClusterObservation, Target } from "../calico/shared/observation.js";
import type { FelixSet, Write } from "../calico/plan/plan.js";
import { asBackend, podsBackend } from "../calico/shared/routing.js";
import {
  clusterRoutesEnabled,
  poolsNeedingClusterRoutes,
} from "../calico/shared/cluster-routes.js";
import { drive } from "./drive.js";
import { brief, type MigrationIo, type StepDone, type Track, type WaitOptions } from "./types.js";
import { settle, type Settled } from "./waits.js";
import { writeStep } from "./write-step.js";

/** The target that puts the cluster back as it was observed. */
export function targetOf(obs: ClusterObservation, names: readonly string[]): Target {
  return {
    pools: obs.live.pools
      .filter((p) => names.includes(p.name))
      .map((p) => ({ name: p.name, ipipMode: p.ipipMode, vxlanMode: p.vxlanMode })),
    backend: asBackend(podsBackend(obs)),
  };
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

/**
 * Rolls back to `initial` after the forward step failed; returns the verdict and whether it was verified. Never
 * throws: a rollback that stops (a lost Lease included) says why in its verdict, and its steps stay in `back`.
 */
export async function rollBack(
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
