// Bridge mode (`calico-encap bridge`): NDJSON with an action plugin (ansible/action_plugins) on
// stdin/stdout. The plugin runs every command on the task's target; this process runs none.

import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { TextSink } from "../protocol/emit.js";
import { stderrLogger } from "../protocol/emit.js";
import { withConsoleOnStderr } from "../protocol/run.js";
import { BridgeSession } from "./session.js";

export async function runBridge(
  input: Readable,
  output: Writable,
  stderr: TextSink = process.stderr,
): Promise<void> {
  const session = new BridgeSession((line) => {
    output.write(line);
  });
  output.on("error", (error: Error) => {
    session.abandon(`the action plugin stopped reading the bridge (${error.message})`);
  });
  const lines = createInterface({ input, crlfDelay: Infinity });
  lines.on("line", (line) => session.receive(line));
  lines.on("close", () => session.end());
  // stdout carries only protocol lines: stray console output goes to stderr.
  await withConsoleOnStderr(stderrLogger(stderr), () => session.done);
  lines.close();
}
