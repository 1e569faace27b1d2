// calico_encap_migrate's shared vocabulary: the io the run drives (MigrationIo, one Poll), its options, the steps it
// reports, and its two errors (a write that failed once begun; the run that failed, with what it did).

import type { ClusterObservation } from "../calico/shared/observation.js";
import type { Step, Write } from "../calico/plan/plan.js";
import type { Clock } from "../cluster/lock.js";

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

/** What a run keeps beside its steps: the last observation, and the warnings its result carries. */
export interface Track {
  seen(obs: ClusterObservation): void;
  /** What a step relied on and did not hold, said in the result (the migration goes on). */
  warn(msg: string): void;
}
