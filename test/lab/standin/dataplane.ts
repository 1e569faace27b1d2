// The adapter between the stand-in and the data plane (../dataplane/apply.ts, written separately): the spec is
// always written to <LAB_STATE>/dataplane/desired.json; applyDataplane is called only when LAB_DATAPLANE is not 0,
// <LAB_STATE>/net/config exists (this lab set up its namespaces; its LAB_NETNS_PREFIX wins)
// and the module exists, so the stand-in runs without it.

import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DataplaneSpec } from "../dataplane/spec.js";

type Apply = (spec: DataplaneSpec, opts: { netnsPrefix: string }) => Promise<void>;

export interface DataplaneAdapter {
  /** Writes the spec and applies it; resolves once applied (or skipped). */
  push(spec: DataplaneSpec): Promise<void>;
  readonly mode: string;
}

export function writeAtomic(file: string, text: string): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

export async function dataplaneAdapter(
  state: string,
  enabled: boolean,
  netnsPrefix: string,
  log: (msg: string) => void,
): Promise<DataplaneAdapter> {
  const dir = join(state, "dataplane");
  mkdirSync(dir, { recursive: true });
  let apply: Apply | null = null;
  let mode = "off (LAB_DATAPLANE=0): spec written only";
  // Only this lab's own namespaces: net.sh records them in <LAB_STATE>/net/config. Without it (no data plane
  // here) nothing is applied, so a stand-in never programs the namespaces of another lab on the machine.
  const netConfig = join(state, "net", "config");
  if (enabled && !existsSync(netConfig)) {
    enabled = false;
    mode = `off: ${netConfig} missing (this lab has no data plane); spec written only`;
  } else if (enabled) {
    const m = /^LAB_NETNS_PREFIX=(.*)$/m.exec(readFileSync(netConfig, "utf8"));
    if (m?.[1]) netnsPrefix = m[1].trim();
  }
  if (enabled) {
    // A computed specifier: the module may not exist when this is compiled or run.
    const specifier = ["..", "dataplane", "apply.js"].join("/");
    try {
      const m = (await import(specifier)) as { applyDataplane?: Apply };
      if (typeof m.applyDataplane === "function") {
        apply = m.applyDataplane;
        mode = `on (netns prefix ${netnsPrefix})`;
      } else mode = "off: dataplane/apply.js has no applyDataplane; spec written only";
    } catch (e) {
      mode = `off: dataplane/apply.js not loadable (${(e as Error).message.split("\n")[0]}); spec written only`;
    }
  }
  log(`data plane ${mode}`);
  return {
    mode,
    async push(spec) {
      writeAtomic(join(dir, "desired.json"), JSON.stringify(spec, null, 2) + "\n");
      if (apply) await apply(spec, { netnsPrefix });
    },
  };
}
