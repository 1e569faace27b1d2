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
      acquireTime: microTime(nowMs),
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
    if (created.rc === 0) return;
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
  }

  async renew(nowMs: number): Promise<void> {
    const argv = this.ns(
      "patch",
      "lease",
      LEASE_NAME,
      "--type",
      "merge",
      "-p",
      JSON.stringify({ spec: { renewTime: microTime(nowMs) } }),
    );
    const r = await this.runner.run(argv, { timeoutSeconds: this.timeoutSeconds });
    if (r.rc !== 0)
      throw DatastoreError.failed(
        argv,
        r,
        "The lock could not be renewed; the run stops to stay safe.",
      );
  }

  async release(): Promise<void> {
    await this.runner.run(this.ns("delete", "lease", LEASE_NAME, "--ignore-not-found"), {
      timeoutSeconds: this.timeoutSeconds,
    });
  }
}
