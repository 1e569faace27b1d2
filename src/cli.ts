#!/usr/bin/env node
// calico-encap's entry point.
//   calico-encap module <name> <args-file>   Ansible's WANT_JSON protocol (ansible/library wrappers)

import { mark } from "./timings.js";
import { LocalRunner } from "./cluster/runner.js";
import { calicoPoolCheck } from "./modules/calico_pool_check.js";
import { runModuleMode } from "./protocol/run.js";

const USAGE = "usage: calico-encap module <calico_pool_check> <args-file>";

const MODULES = {
  calico_pool_check: calicoPoolCheck,
} as const;

async function main(argv: string[]): Promise<void> {
  mark("loaded");
  const [mode, name, argsPath] = argv;
  if (mode === "module" && name !== undefined && argsPath !== undefined && name in MODULES) {
    const factory = MODULES[name as keyof typeof MODULES];
    await runModuleMode(factory(new LocalRunner()), argsPath);
    return;
  }
  process.stderr.write(`${USAGE}\n`);
  process.exitCode = 2;
}

await main(process.argv.slice(2));
