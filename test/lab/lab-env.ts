// What the lab's long-running helpers (the lab kubelet, the calico-node stand-in) share: the variables `lab.sh up`
// wrote to <LAB_STATE>/env, and a timestamped log line on stdout (their log file).

import { existsSync, readFileSync } from "node:fs";

export function log(msg: string): void {
  process.stdout.write(`${new Date().toISOString()} ${msg}\n`);
}

/**
 * A control loop's log of its own failures: each new error once ("cycle failed (retrying): ..."), and the
 * recovery after one ("apiserver reachable again").
 */
export function cycleLog(): { ok(): void; failed(e: unknown): void } {
  let last = "";
  return {
    ok() {
      if (last) log("apiserver reachable again");
      last = "";
    },
    failed(e: unknown) {
      const msg = e instanceof Error ? e.message : String(e);
      if (msg !== last) log(`cycle failed (retrying): ${msg}`);
      last = msg;
    },
  };
}

/** `export NAME=value` lines of <LAB_STATE>/env; empty when the file is missing. */
export function readEnvFile(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(file)) return out;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const m = /^export ([A-Za-z_0-9]+)=(.*)$/.exec(line);
    if (m?.[1] && m[2] !== undefined) out[m[1]] = m[2];
  }
  return out;
}
