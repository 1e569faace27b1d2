#!/usr/bin/env node
// calico-encap's entry point.
//   calico-encap module <name> <args-file>   Ansible's WANT_JSON protocol (ansible/library wrappers)

import { mark } from "./timings.js";
import type { CommandRunner } from "./cluster/runner.js";
import { LocalRunner } from "./cluster/runner.js";
import { runModuleMode } from "./protocol/run.js";

const USAGE = "usage: calico-encap module <calico_pool_check|calico_encap_migrate> <args-file>";

/** Each module loads only when asked for, so one module's process does not pay for the other's code. */
const MODULES: Record<string, (runner: CommandRunner, argsPath: string) => Promise<void>> = {
  calico_pool_check: async (runner, argsPath) =>
    runModuleMode(
      (await import("./modules/calico_pool_check.js")).calicoPoolCheck(runner),
      argsPath,
    ),
  calico_encap_migrate: async (runner, argsPath) =>
    runModuleMode(
      (await import("./modules/calico_encap_migrate.js")).calicoEncapMigrate(runner),
      argsPath,
    ),
};

async function main(argv: string[]): Promise<void> {
  mark("loaded");
  const [mode, name, argsPath] = argv;
  const run = name !== undefined ? MODULES[name] : undefined;
  if (mode === "module" && run && argsPath !== undefined) {
    await run(new LocalRunner(), argsPath);
    return;
  }
  process.stderr.write(`${USAGE}\n`);
  process.exitCode = 2;
}

await main(process.argv.slice(2));
