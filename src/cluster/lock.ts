// The lock against concurrent migrations: a Lease kube-system/calico-encap-migrate with holder and expiry.
// A second run refuses while the Lease is held and not expired; an expired Lease (a run that was killed)
// is taken over with the resourceVersion it was read at, so two runs cannot both take it.

import { hostname } from "node:os";
import type { Json } from "./decode.js";
import { decodeKind, field, str } from "./decode.js";
import { DatastoreError } from "./errors.js";
import type { CommandRunner } from "./runner.js";

export const LEASE_NAME = "calico-encap-migrate";
export const LEASE_NAMESPACE = "kube-system";

function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

export function leaseObject(
  holder: string,
  nowMs: number,
  durationSeconds: number,
  resourceVersion?: string,
  acquiredMs: number = nowMs,
): object {
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: {
      name: LEASE_NAME,
      namespace: LEASE_NAMESPACE,
      ...(resourceVersion ? { resourceVersion } : {}),
    },
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: durationSeconds,
      acquireTime: microTime(acquiredMs),
      renewTime: microTime(nowMs),
    },
  };
}

export interface LeaseState {
  holder: string;
  expiresMs: number;
  resourceVersion: string;
}

export function leaseState(obj: Json): LeaseState {
  const renew = Date.parse(
    str(field(obj, "spec", "renewTime")) ?? str(field(obj, "spec", "acquireTime")) ?? "",
  );
  const duration = field(obj, "spec", "leaseDurationSeconds");
  return {
    holder: str(field(obj, "spec", "holderIdentity")) ?? "",
    expiresMs:
      (Number.isFinite(renew) ? renew : 0) + (typeof duration === "number" ? duration : 0) * 1000,
    resourceVersion: str(field(obj, "metadata", "resourceVersion")) ?? "",
  };
}

export class LockRefused extends Error {}

/** The Lease this run held was taken over by another run (this one was too slow to renew it). */
export class LockLost extends Error {}

/** The resourceVersion of the Lease kubectl printed after writing it ("" when it printed none). */
function writtenVersion(stdout: string): string {
  try {
    return leaseState(JSON.parse(stdout) as Json).resourceVersion;
  } catch {
    return "";
  }
}

/** A holder "host/pid/nonce" on this host whose process is gone: a killed run, whose Lease is stale. */
export function holderIsDeadHere(
  holder: string,
  host: string,
  alive: (pid: number) => boolean,
): boolean {
  const [h, pid] = holder.split("/");
  return h === host && /^\d+$/.test(pid ?? "") && !alive(Number(pid));
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

export class Lock {
  /** The Lease as this run last wrote it: renewals replace exactly that version, or find it lost. */
  private held: { resourceVersion: string; acquiredMs: number } | null = null;

  constructor(
    private readonly runner: CommandRunner,
    private readonly kubectl: readonly string[],
    private readonly holder: string,
    private readonly durationSeconds: number,
    private readonly timeoutSeconds: number,
  ) {}

  private ns(...args: string[]): string[] {
    return [...this.kubectl, "--namespace", LEASE_NAMESPACE, ...args];
  }

  private async apply(verb: "create" | "replace", lease: object) {
    return this.runner.run(this.ns(verb, "-f", "-", "-o", "json"), {
      timeoutSeconds: this.timeoutSeconds,
      stdin: JSON.stringify(lease),
    });
  }

  async acquire(nowMs: number): Promise<void> {
    const created = await this.apply(
      "create",
      leaseObject(this.holder, nowMs, this.durationSeconds),
    );
    if (created.rc === 0) {
      this.held = { resourceVersion: writtenVersion(created.stdout), acquiredMs: nowMs };
      return;
    }
    if (!/AlreadyExists|already exists/.test(created.stderr))
      throw DatastoreError.failed(
        this.ns("create", "-f", "-"),
        created,
        "Check that the kubeconfig may create Leases in kube-system.",
      );
    const getArgv = this.ns("get", "lease", LEASE_NAME, "-o", "json");
    const got = await this.runner.run(getArgv, { timeoutSeconds: this.timeoutSeconds });
    if (got.rc !== 0)
      throw DatastoreError.failed(getArgv, got, "Check access to Leases in kube-system.");
    const state = leaseState(decodeKind(getArgv, got.stdout, ["Lease"]));
    const stale = holderIsDeadHere(state.holder, hostname(), pidAlive);
    if (state.holder !== this.holder && state.expiresMs > nowMs && !stale)
      throw new LockRefused(
        `another calico_encap_migrate run holds Lease ${LEASE_NAMESPACE}/${LEASE_NAME} (holder ${state.holder}, until ${new Date(state.expiresMs).toISOString()}); wait for it to finish, or delete the Lease if that run is gone.`,
      );
    const taken = await this.apply(
      "replace",
      leaseObject(this.holder, nowMs, this.durationSeconds, state.resourceVersion),
    );
    if (taken.rc !== 0)
      throw new LockRefused(
        `another calico_encap_migrate run took Lease ${LEASE_NAMESPACE}/${LEASE_NAME} at the same moment; re-run later.`,
      );
    this.held = { resourceVersion: writtenVersion(taken.stdout), acquiredMs: nowMs };
  }

  private async read(): Promise<LeaseState | null> {
    const argv = this.ns("get", "lease", LEASE_NAME, "--ignore-not-found", "-o", "json");
    const r = await this.runner.run(argv, { timeoutSeconds: this.timeoutSeconds });
    if (r.rc !== 0) throw DatastoreError.failed(argv, r, "Check access to Leases in kube-system.");
    if (r.stdout.trim() === "") return null;
    return leaseState(decodeKind(argv, r.stdout, ["Lease"]));
  }

  /**
   * Renews the Lease by replacing the version this run last wrote: if another run took it over
   * meanwhile (this run was too slow), the replace conflicts and the run stops with LockLost.
   */
  async renew(nowMs: number): Promise<void> {
    const held = this.held;
    if (held === null) throw new Error("renew() before acquire()");
    const lease = leaseObject(
      this.holder,
      nowMs,
      this.durationSeconds,
      held.resourceVersion || undefined,
      held.acquiredMs,
    );
    const r = await this.apply("replace", lease);
    if (r.rc === 0) {
      this.held = { ...held, resourceVersion: writtenVersion(r.stdout) };
      return;
    }
    if (/Conflict|has been modified|NotFound|not found/.test(r.stderr)) {
      const now = await this.read().catch(() => null);
      throw new LockLost(
        `Lease ${LEASE_NAMESPACE}/${LEASE_NAME} is no longer held by this run (holder now ${now?.holder ?? "none"}): another run may be migrating; this run stopped before its next write. Re-run when that run is finished.`,
      );
    }
    throw DatastoreError.failed(
      this.ns("replace", "-f", "-"),
      r,
      "The lock could not be renewed; the run stops to stay safe.",
    );
  }

  /** Deletes the Lease if this run still holds it; a Lease another run took over stays. */
  async release(): Promise<void> {
    if (this.held === null) return;
    const current = await this.read();
    this.held = null;
    if (current === null || current.holder !== this.holder) return;
    await this.runner.run(this.ns("delete", "lease", LEASE_NAME, "--ignore-not-found"), {
      timeoutSeconds: this.timeoutSeconds,
    });
  }
}
