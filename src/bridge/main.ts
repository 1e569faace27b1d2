// Bridge mode (stub, to be written): NDJSON with ansible/action_plugins on stdin/stdout.
import type { Readable, Writable } from "node:stream";

export function runBridge(input: Readable, output: Writable): Promise<void> {
  void input;
  output.write(
    JSON.stringify({
      op: "result",
      result: { failed: true, msg: "bridge mode is not built yet" },
    }) + "\n",
  );
  return Promise.resolve();
}
