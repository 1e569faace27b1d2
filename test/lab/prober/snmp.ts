// The kernel's count of UDP datagrams dropped because a socket's receive buffer was full (RcvbufErrors), read
// from /proc/net/snmp (IPv4) or /proc/net/snmp6 (IPv6) of the reading process's network namespace. A prober
// agent that stalls (a loaded machine) lets its socket's buffer fill: the probes and echoes the kernel then drops
// were delivered by the network and lost by the prober. The count says how many, per namespace.

import { readFileSync } from "node:fs";
import type { Family } from "./types.js";

/** RcvbufErrors from /proc/net/snmp's text: the `Udp:` header line names the columns of the `Udp:` value line. */
export function udpRcvbufErrors(snmp: string): number | null {
  const lines = snmp.split("\n").filter((l) => l.startsWith("Udp: "));
  if (lines.length < 2) return null;
  const names = lines[0]!.split(/\s+/);
  const values = lines[1]!.split(/\s+/);
  const i = names.indexOf("RcvbufErrors");
  const v = i > 0 ? Number(values[i]) : NaN;
  return Number.isFinite(v) ? v : null;
}

/** Udp6RcvbufErrors from /proc/net/snmp6's text (one `name value` pair a line). */
export function udp6RcvbufErrors(snmp6: string): number | null {
  const m = /^Udp6RcvbufErrors\s+(\d+)\s*$/m.exec(snmp6);
  return m ? Number(m[1]) : null;
}

/** This namespace's count for the family, or null where the kernel does not say. */
export function readRcvbufErrors(family: Family): number | null {
  try {
    return family === "ipv6"
      ? udp6RcvbufErrors(readFileSync("/proc/net/snmp6", "utf8"))
      : udpRcvbufErrors(readFileSync("/proc/net/snmp", "utf8"));
  } catch {
    return null;
  }
}
