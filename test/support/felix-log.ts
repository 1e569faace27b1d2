// What the lab's real Felix logged (<state>/nodes/<node>/log/calico-node-<pod>/felix.log): when a Felix that a
// FelixConfiguration write restarted had programmed the dataplane again. Felix restarts itself when its encapsulation
// flags change (it sleeps 2 s, exits with 129 and runit starts it again; nothing in the datastore shows it), and
// until the new Felix's first dataplane update its routes are being resynced.

import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** "Completed first update to dataplane": a Felix that started has programmed the dataplane once. */
const FIRST_UPDATE = "Completed first update to dataplane";

/** When Felix logged a line (its local time, which Date.parse reads as local), or NaN. */
function loggedAt(line: string): number {
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}\.\d+) /.exec(line);
  return m ? Date.parse(`${m[1]}T${m[2]}`) : NaN;
}

/** The felix.log files of the node's calico-node pods, newest pod first. */
function felixLogFiles(state: string, node: string): string[] {
  const dir = join(state, "nodes", node, "log");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((d) => d.startsWith("calico-node-") && existsSync(join(dir, d, "felix.log")))
    .sort((a, b) => statSync(join(dir, b)).mtimeMs - statSync(join(dir, a)).mtimeMs)
    .map((d) => join(dir, d, "felix.log"));
}

/** The felix.log of the node's newest calico-node pod, or null. */
function felixLog(state: string, node: string): string | null {
  const newest = felixLogFiles(state, node)[0];
  return newest ? readFileSync(newest, "utf8") : null;
}

/**
 * When the node's Felix last completed its first dataplane update after `sinceMs` (ms since the epoch; Felix logs
 * the machine's local time, which Date.parse reads as local), or null when it has not since then.
 */
export function felixProgrammedSince(state: string, node: string, sinceMs: number): number | null {
  const log = felixLog(state, node);
  if (log === null) return null;
  let last: number | null = null;
  for (const line of log.split("\n")) {
    if (!line.includes(FIRST_UPDATE)) continue;
    const at = loggedAt(line);
    if (at >= sinceMs) last = at;
  }
  return last;
}

/** When the lab's kubelet first saw the node's Felix exit with 129 (its restart) after `sinceMs`, or null. */
export function felixExitedSince(state: string, node: string, sinceMs: number): number | null {
  const file = join(state, "log", "kubelet.log");
  if (!existsSync(file)) return null;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const m = /^(\S+Z) (\S+): felix exited \(code 129\)/.exec(line);
    if (!m?.[1] || m[2] !== node) continue;
    const at = Date.parse(m[1]);
    if (at >= sinceMs) return at;
  }
  return null;
}

/** Whether the node's Felix restarted after `sinceMs` and the new one has programmed the dataplane. */
export function felixRestartedSince(state: string, node: string, sinceMs: number): boolean {
  const exited = felixExitedSince(state, node, sinceMs);
  return exited !== null && felixProgrammedSince(state, node, exited) !== null;
}

/**
 * The lines, logged at or after `sinceMs`, in which any of the node's Felixes could not find a device its route
 * tables manage (Felix's route_table.go: "Failed to get link attributes ... interface not present ifaceRegex=..."):
 * the seed's symptom on Felix before v3.23, whose VXLAN route table looks for vxlan.calico once FelixConfiguration
 * says vxlanEnabled, pool or not. (A migration into VXLAN shows it too, briefly: between vxlanEnabled and the VTEP.)
 */
export function felixMissingDevice(
  state: string,
  node: string,
  device: string,
  sinceMs: number,
): string[] {
  const iface = `ifaceRegex="^${device}$"`;
  return felixLogFiles(state, node)
    .flatMap((f) => readFileSync(f, "utf8").split("\n"))
    .filter(
      (l) =>
        l.includes("Failed to get link attributes") &&
        l.includes("interface not present") &&
        l.includes(iface) &&
        loggedAt(l) >= sinceMs,
    );
}
