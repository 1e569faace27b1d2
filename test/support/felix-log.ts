// What the lab's real Felix logged (<state>/nodes/<node>/log/calico-node-<pod>/felix.log): when a Felix that a
// FelixConfiguration write restarted had programmed the dataplane again. Felix restarts itself when its encapsulation
// flags change (it sleeps 2 s, exits with 129 and runit starts it again; nothing in the datastore shows it), and
// until the new Felix's first dataplane update its routes are being resynced.

import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** "Completed first update to dataplane": a Felix that started has programmed the dataplane once. */
const FIRST_UPDATE =
  /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}\.\d+) .*Completed first update to dataplane/;

/** The felix.log of the node's newest calico-node pod, or null. */
function felixLog(state: string, node: string): string | null {
  const dir = join(state, "nodes", node, "log");
  if (!existsSync(dir)) return null;
  const pods = readdirSync(dir)
    .filter((d) => d.startsWith("calico-node-") && existsSync(join(dir, d, "felix.log")))
    .sort((a, b) => statSync(join(dir, b)).mtimeMs - statSync(join(dir, a)).mtimeMs);
  return pods[0] ? readFileSync(join(dir, pods[0], "felix.log"), "utf8") : null;
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
    const m = FIRST_UPDATE.exec(line);
    if (!m) continue;
    const at = Date.parse(`${m[1]}T${m[2]}`);
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
