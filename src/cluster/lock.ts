// The lock against concurrent migrations: the Lease kube-system/calico-encap-migrate (see lease.ts).
// Every write to the Lease replaces the version this run last read or wrote, so two runs never both take it and
// a run never renews or releases a Lease another run took over. Expiry is judged as client-go's leader election
// judges it: by this run's own clock, from the moment it first saw the Lease's current version, never by the
// holder's renewTime. A holder whose process is gone in this run's own host, boot and PID namespace is taken over
// at once.

import type { Json } from "./decode.js";
import { decodeKind } from "./decode.js";
import { DatastoreError } from "./errors.js";
import type { LeaseState, Place } from "./lease.js";
import {
  LEASE_NAME,
  LEASE_NAMESPACE,
  leaseObject,
  leaseState,
  pidAlive,
  pidHere,
} from "./lease.js";
import type { BatchCommand, CommandResult, CommandRunner } from "./runner.js";
import { commandMissing } from "./runner.js";

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export class LockRefused extends Error {}

/** The Lease this run held was taken over by another run (this one was too slow to renew it). */
export class LockLost extends Error {}

export interface LockOptions {
  runner: CommandRunner;
  kubectl: readonly string[];
  holder: string;
  /** Where this run runs, to recognise a holder whose process is gone. */
  here: Place;
  /** leaseDurationSeconds this run writes. */
  durationSeconds: number;
  timeoutSeconds: number;
  /** The longest this run watches a held Lease for a missed renewal before refusing (wait_timeout). */
  maxWatchSeconds: number;
  /** How often it looks at a held Lease while watching (wait_sleep). */
  pollSeconds: number;
  clock: Clock;
  log?: (verbosity: number, msg: string) => void;
  alive?: (pid: number) => boolean;
}

const NAME = `${LEASE_NAMESPACE}/${LEASE_NAME}`;

/** The resourceVersion of the Lease kubectl printed after writing it ("" when it printed none). */
function writtenVersion(stdout: string): string {
  try {
    return leaseState(JSON.parse(stdout) as Json).resourceVersion;
  } catch {
    return "";
  }
}

/** The apiserver's answer to a write on a Lease another run replaced or deleted, as kubectl prints it. */
const CONFLICT = /\((Conflict|NotFound)\)|has been modified/;

/**
 * Whether a Lease write failed because another run changed the Lease in between: never a command the shell could
 * not find ("kubectl: not found", exit code 127), which DatastoreError.failed names as missing.
 */
function lostToAnotherRun(r: CommandResult): boolean {
  return !commandMissing(r) && CONFLICT.test(r.stderr);
}

/** Whether a Lease write failed because the Lease is gone (deleted, as a refusal advises an operator to do). */
function leaseGone(r: CommandResult): boolean {
  return !commandMissing(r) && /\(NotFound\)/.test(r.stderr);
}

export class Lock {
  /** The Lease as this run last wrote it: renewals and the release replace exactly that version. */
  private held: { resourceVersion: string; acquiredMs: number } | null = null;

  constructor(private readonly o: LockOptions) {}

  private ns(...args: string[]): string[] {
    return [...this.o.kubectl, "--namespace", LEASE_NAMESPACE, ...args];
  }

  private async apply(verb: "create" | "replace", lease: object): Promise<CommandResult> {
    return this.o.runner.run(this.ns(verb, "-f", "-", "-o", "json"), {
      timeoutSeconds: this.o.timeoutSeconds,
      stdin: JSON.stringify(lease),
    });
  }

  private async read(): Promise<LeaseState | null> {
    const argv = this.ns("get", "lease", LEASE_NAME, "--ignore-not-found", "-o", "json");
    const r = await this.o.runner.run(argv, { timeoutSeconds: this.o.timeoutSeconds });
    if (r.rc !== 0) throw DatastoreError.failed(argv, r, "Check access to Leases in kube-system.");
    if (r.stdout.trim() === "") return null;
    return leaseState(decodeKind(argv, r.stdout, ["Lease"]));
  }

  /** Creates the Lease; false when it already exists. */
  private async create(nowMs: number): Promise<boolean> {
    const r = await this.apply("create", leaseObject(this.o.holder, nowMs, this.o.durationSeconds));
    if (r.rc === 0) {
      this.held = { resourceVersion: writtenVersion(r.stdout), acquiredMs: nowMs };
      return true;
    }
    if (/AlreadyExists|already exists/.test(r.stderr)) return false;
    throw DatastoreError.failed(
      this.ns("create", "-f", "-"),
      r,
      "Check that the kubeconfig may create Leases in kube-system.",
    );
  }

  /**
   * Replaces the Lease at the version it was seen at; another run writing it first refuses this one. False when the
   * Lease is gone meanwhile (an operator deleted it): the caller creates it.
   */
  private async takeOver(seen: LeaseState, why: string): Promise<boolean> {
    const nowMs = this.o.clock.now();
    const r = await this.apply(
      "replace",
      leaseObject(this.o.holder, nowMs, this.o.durationSeconds, seen.resourceVersion),
    );
    if (r.rc !== 0) {
      if (leaseGone(r)) return false;
      if (lostToAnotherRun(r))
        throw new LockRefused(
          `another calico_encap_migrate run took Lease ${NAME} at the same moment; re-run later.`,
        );
      throw DatastoreError.failed(this.ns("replace", "-f", "-"), r, "Check access to Leases.");
    }
    if (seen.holder) this.o.log?.(1, `took over Lease ${NAME} from ${seen.holder}: ${why}`);
    this.held = { resourceVersion: writtenVersion(r.stdout), acquiredMs: nowMs };
    return true;
  }

  private refused(s: LeaseState, why: string): LockRefused {
    return new LockRefused(
      `another calico_encap_migrate run holds Lease ${NAME} (holder ${s.holder}, renewed at ${s.renewTime} by its clock, for ${s.durationSeconds} s): ${why}. Wait for it to finish, or delete the Lease if that run is gone.`,
    );
  }

  async acquire(): Promise<void> {
    const clock = this.o.clock;
    if (await this.create(clock.now())) return;
    let seen = await this.read();
    let firstSeenMs = clock.now();
    let announced = false;
    for (;;) {
      if (seen === null) {
        if (await this.create(clock.now())) return;
        seen = await this.read();
        firstSeenMs = clock.now();
        continue;
      }
      // The Lease deleted between this run's read and its take-over is created anew (the loop's first branch).
      if (seen.holder === "" || seen.holder === this.o.holder) {
        if (await this.takeOver(seen, "it was released")) return;
        seen = null;
        continue;
      }
      // A holder on this host whose process is gone is taken over at once. One whose PID is alive is watched like
      // any other: the PID may be another process's now, and only a renewal shows the run is still there.
      const pid = pidHere(seen.holder, this.o.here);
      if (pid !== null && !(this.o.alive ?? pidAlive)(pid)) {
        if (await this.takeOver(seen, `its process ${pid} is gone on this host`)) return;
        seen = null;
        continue;
      }
      const durationMs = seen.durationSeconds * 1000;
      if (durationMs > this.o.maxWatchSeconds * 1000)
        throw this.refused(
          seen,
          `this run would take it over only once it has seen it unrenewed for ${seen.durationSeconds} s, longer than wait_timeout (${this.o.maxWatchSeconds} s)`,
        );
      const watched = clock.now() - firstSeenMs;
      if (watched >= durationMs) {
        const why = `not renewed in the ${seen.durationSeconds} s since this run first saw it`;
        if (await this.takeOver(seen, why)) return;
        seen = null;
        continue;
      }
      if (!announced)
        this.o.log?.(
          1,
          `Lease ${NAME} is held by ${seen.holder}: watching it; taken over if it is not renewed within ${seen.durationSeconds} s`,
        );
      announced = true;
      await clock.sleep(Math.min(this.o.pollSeconds * 1000, durationMs - watched));
      const next = await this.read();
      if (next === null || next.holder === "") {
        seen = next;
        firstSeenMs = clock.now();
      } else if (next.resourceVersion !== seen.resourceVersion)
        throw this.refused(next, "it was renewed while this run watched it");
    }
  }

  /**
   * The version of the Lease this run last wrote, for a replace conditional on it: never an unconditional replace,
   * which could overwrite another run's Lease. When kubectl printed none, the Lease as it is now, if it still names
   * this run; null when it does not.
   */
  private async heldVersion(written: string): Promise<string | null> {
    if (written !== "") return written;
    const now = await this.read().catch(() => null);
    return now !== null && now.holder === this.o.holder && now.resourceVersion !== ""
      ? now.resourceVersion
      : null;
  }

  /**
   * Renews the Lease by replacing the version this run last wrote: if another run took it over
   * meanwhile (this run was too slow), the replace conflicts and the run stops with LockLost.
   */
  async renew(): Promise<void> {
    const held = this.held;
    if (held === null) throw new Error("renew() before acquire()");
    const version = await this.heldVersion(held.resourceVersion);
    if (version === null) {
      this.held = null;
      throw new LockLost(
        `Lease ${NAME}: kubectl printed no resourceVersion for this run's last write, and the Lease no longer names this run: another run may be migrating; this run stopped before its next write. Re-run when that run is finished.`,
      );
    }
    const lease = leaseObject(
      this.o.holder,
      this.o.clock.now(),
      this.o.durationSeconds,
      version,
      held.acquiredMs,
    );
    const argv = this.ns("replace", "-f", "-", "-o", "json");
    await this.renewed(argv, await this.apply("replace", lease));
  }

  /**
   * The renewal as one command that needs no stdin, for a poll's batch of reads (one round trip through the
   * bridge): a merge patch of the Lease's spec whose metadata.resourceVersion, the version this run last wrote, is
   * the precondition, so a Lease another run took over conflicts as the replace does. Null when this run does not
   * know that version (kubectl printed none): renew() reads it first. Pass the command's result to renewed().
   */
  renewal(): BatchCommand | null {
    const held = this.held;
    if (held === null || held.resourceVersion === "") return null;
    const lease = leaseObject(
      this.o.holder,
      this.o.clock.now(),
      this.o.durationSeconds,
      held.resourceVersion,
      held.acquiredMs,
    ) as { metadata: { resourceVersion: string }; spec: object };
    const patch = {
      metadata: { resourceVersion: lease.metadata.resourceVersion },
      spec: lease.spec,
    };
    return {
      argv: this.ns(
        "patch",
        "lease",
        LEASE_NAME,
        "--type",
        "merge",
        "-p",
        JSON.stringify(patch),
        "-o",
        "json",
      ),
      timeoutSeconds: this.o.timeoutSeconds,
    };
  }

  /** Takes a renewal's result: the version written, LockLost on a conflict, a DatastoreError on any other failure. */
  async renewed(argv: readonly string[], r: CommandResult): Promise<void> {
    const held = this.held;
    if (held === null) throw new Error("renewed() before acquire()");
    if (r.rc === 0) {
      this.held = { ...held, resourceVersion: writtenVersion(r.stdout) };
      return;
    }
    if (lostToAnotherRun(r)) {
      const now = await this.read().catch(() => null);
      // This run's own earlier renewal was applied though kubectl never said so (it timed out, or its answer was
      // lost): the Lease still names this run, at a version it did not see. Renewed once at that version.
      if (
        now !== null &&
        now.holder === this.o.holder &&
        now.resourceVersion !== "" &&
        now.resourceVersion !== held.resourceVersion
      ) {
        this.o.log?.(
          2,
          `Lease ${NAME} is at a version this run wrote without seeing it (${now.resourceVersion}); renewing from it`,
        );
        const again = await this.apply(
          "replace",
          leaseObject(
            this.o.holder,
            this.o.clock.now(),
            this.o.durationSeconds,
            now.resourceVersion,
            held.acquiredMs,
          ),
        );
        if (again.rc === 0) {
          this.held = { ...held, resourceVersion: writtenVersion(again.stdout) };
          return;
        }
        if (!lostToAnotherRun(again))
          throw DatastoreError.failed(
            argv,
            again,
            "The Lease could not be renewed; check that the apiserver answers and the kubeconfig may update Leases in kube-system.",
          );
      }
      this.held = null;
      const holder =
        now?.holder === this.o.holder ? (await this.read().catch(() => null))?.holder : now?.holder;
      throw new LockLost(
        `Lease ${NAME} is no longer held by this run (holder now ${holder || "none"}): another run may be migrating; this run stopped before its next write. Re-run when that run is finished.`,
      );
    }
    throw DatastoreError.failed(
      argv,
      r,
      "The Lease could not be renewed; check that the apiserver answers and the kubeconfig may update Leases in kube-system.",
    );
  }

  /**
   * Releases the Lease by replacing the version this run last wrote with one that has no holder: a Lease another
   * run took over (a newer version) conflicts and stays as that run wrote it.
   */
  async release(): Promise<void> {
    const held = this.held;
    if (held === null) return;
    this.held = null;
    const version = await this.heldVersion(held.resourceVersion);
    if (version === null) {
      this.o.log?.(1, `Lease ${NAME} no longer names this run; left as it is`);
      return;
    }
    const r = await this.apply(
      "replace",
      leaseObject(null, this.o.clock.now(), 1, version, held.acquiredMs),
    );
    if (r.rc === 0) return;
    if (lostToAnotherRun(r)) {
      this.o.log?.(1, `Lease ${NAME} was taken over by another run; left as that run wrote it`);
      return;
    }
    throw DatastoreError.failed(this.ns("replace", "-f", "-"), r, "Check access to Leases.");
  }
}
