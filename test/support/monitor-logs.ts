// The lab's per-node `ip monitor link route neigh` logs (test/lab/net.sh writes <state>/log/monitor-<node>.log from
// before calico-node starts; each line stamped by `ip -ts`).

import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** One node's monitor log, as text. */
export function monitorLog(state: string, node: string): string {
  return readFileSync(join(state, "log", `monitor-${node}.log`), "utf8");
}

/** Every node's monitor log in the lab's state directory. */
export function labMonitorLogs(state: string): { node: string; log: string }[] {
  return readdirSync(join(state, "log"))
    .map((f) => /^monitor-(.+)\.log$/.exec(f)?.[1])
    .filter((node): node is string => node !== undefined)
    .sort()
    .map((node) => ({ node, log: monitorLog(state, node) }));
}
