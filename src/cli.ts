#!/usr/bin/env node
// calico-encap's entry point.
//   calico-encap module <name> <args-file>   Ansible's WANT_JSON protocol (ansible/library wrappers)
//   calico-encap bridge                      NDJSON on stdin/stdout for the action plugins
//   calico-encap check|migrate [flags]       for people outside Ansible (--help)

import { mark } from "./timings.js";
import { modeOf } from "./modes.js";

const USAGE = [
  "usage: calico-encap check [flags]            compare a cluster with the inventory's settings",
  "       calico-encap migrate [flags]          move a cluster to another encapsulation",
  "       calico-encap module <calico_pool_check|calico_encap_migrate> <args-file>",
  "       calico-encap bridge                   (run by ansible/action_plugins)",
].join("\n");

async function main(argv: string[]): Promise<void> {
  mark("loaded");
  const [arg, ...rest] = argv;
  const mode = modeOf(arg);
  if (mode === "module" && rest.length === 2) {
    const [name, argsPath] = rest as [string, string];
    const { loadModule } = await import("./modules/index.js");
    const factory = await loadModule(name);
    if (factory) {
      const [{ LocalRunner }, { runModuleMode }] = await Promise.all([
        import("./cluster/runner.js"),
        import("./protocol/run.js"),
      ]);
      await runModuleMode(factory(new LocalRunner()), argsPath);
      return;
    }
  }
  if (mode === "bridge" && rest.length === 0) {
    const { runBridge } = await import("./bridge/main.js");
    await runBridge(process.stdin, process.stdout);
    return;
  }
  if (mode === "check" || mode === "migrate") {
    const { runHuman } = await import("./human/main.js");
    process.exitCode = await runHuman(mode, rest);
    return;
  }
  process.stderr.write(`${USAGE}\n`);
  process.exitCode = 2;
}

// Not a top-level await: the collection's bundle runs this file as CommonJS (src/bundle/loader.ts). A rejection
// ends the process as an unhandled one does, with its stack and exit code 1.
void main(process.argv.slice(2));
