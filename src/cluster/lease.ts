// The Lease kube-system/calico-encap-migrate as an object, and who holds it. A holder names its host, process,
// a nonce, the host's boot id and the process's PID namespace, so a run can tell that a holder's process is gone
// only when it shares that host, boot and PID namespace (two containers with host networking share a hostname).

import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Json } from "./decode.js";
import { field, str } from "./decode.js";

export const LEASE_NAME = "calico-encap-migrate";
export const LEASE_NAMESPACE = "kube-system";

function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** The Lease object; holder null writes a released Lease (no holder, as client-go's ReleaseOnCancel leaves it). */
export function leaseObject(
  holder: string | null,
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
      ...(holder === null ? {} : { holderIdentity: holder }),
      leaseDurationSeconds: durationSeconds,
      acquireTime: microTime(acquiredMs),
      renewTime: microTime(nowMs),
    },
  };
}

export interface LeaseState {
  /** "" when released. */
  holder: string;
  /** spec.renewTime as the holder wrote it (its clock: shown, never used to judge expiry). */
  renewTime: string;
  durationSeconds: number;
  resourceVersion: string;
}

export function leaseState(obj: Json): LeaseState {
  const duration = field(obj, "spec", "leaseDurationSeconds");
  return {
    holder: str(field(obj, "spec", "holderIdentity")) ?? "",
    renewTime:
      str(field(obj, "spec", "renewTime")) ?? str(field(obj, "spec", "acquireTime")) ?? "never",
    durationSeconds: typeof duration === "number" ? duration : 0,
    resourceVersion: str(field(obj, "metadata", "resourceVersion")) ?? "",
  };
}

/** Where a process runs: host name, boot id and PID namespace. */
export interface Place {
  host: string;
  bootId: string;
  pidNamespace: string;
}

/** "host/pid/nonce/bootId/pidNamespace". */
export function formatHolder(place: Place, pid: number, nonce: string): string {
  return [place.host, String(pid), nonce, place.bootId, place.pidNamespace].join("/");
}

/** This process's place; an unreadable boot id or namespace is "unknown", which never matches another holder. */
export function localPlace(): Place {
  const read = (f: () => string): string => {
    try {
      return f().trim() || "unknown";
    } catch {
      return "unknown";
    }
  };
  return {
    host: hostname(),
    bootId: read(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8")),
    // "pid:[4026531836]": the inode of the PID namespace.
    pidNamespace: read(() => readlinkSync("/proc/self/ns/pid").replace(/^pid:\[(\d+)\]$/, "$1")),
  };
}

export function localHolder(place: Place = localPlace()): string {
  return formatHolder(place, process.pid, randomBytes(4).toString("hex"));
}

/** The holder's pid when it runs in this place (same host, boot and PID namespace), else null. */
export function pidHere(holder: string, here: Place): number | null {
  const [host, pid, , bootId, pidNamespace] = holder.split("/");
  const known = (v: string | undefined): boolean => v !== undefined && v !== "unknown";
  if (host !== here.host || !known(bootId) || bootId !== here.bootId) return null;
  if (!known(pidNamespace) || pidNamespace !== here.pidNamespace) return null;
  return /^\d+$/.test(pid ?? "") ? Number(pid) : null;
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
