// The waits of a run: after each write until the cluster settles (two calm polls, Felix's restarts counted, the
// wait's clock reset by progress), and a call retried every wait_sleep until wait_timeout.

import type { ClusterObservation } from "../calico/shared/observation.js";
import type { Write } from "../calico/plan/plan.js";
import { unsettled } from "../calico/plan/plan.js";
import { convergedNodes, progressOf } from "../calico/plan/progress.js";
import {
  felixRestartPending,
  laterRestart,
  restartAfterTunnelChange,
  restartAfterWrite,
  type FelixRestart,
  tunnelsChanged,
} from "../calico/plan/felix-restart.js";
import { LockLost } from "../cluster/lock.js";
import { brief, type MigrationIo, type Poll, type WaitOptions } from "./types.js";

/** "2 of 3 nodes converged": nodes calico-node runs on that are ready and have every tunnel address they need. */
function converged(obs: ClusterObservation): string {
  const { done, of } = convergedNodes(obs);
  return `${done} of ${of} nodes converged`;
}

export interface Settled {
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
export async function settle(
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

/**
 * The cluster read with the Lease renewed in the same poll, for a read that is retried (patiently): a read that keeps
 * failing for up to wait_timeout must not let the Lease expire under it, as a rollback's first read after the API
 * server went away would. A renewal or read that fails throws (and is retried); LockLost ends it.
 */
export async function renewedObservation(io: MigrationIo): Promise<ClusterObservation> {
  const p = io.poll ? await io.poll() : await renewThenObserve(io);
  const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));
  if (p.renewError !== undefined && p.renewError !== null) throw asError(p.renewError);
  if (!p.obs) throw asError(p.observeError ?? "the poll returned no observation");
  return p.obs;
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
export async function patiently<T>(
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
