// The reads of one observation in one batch: a runner that sends the reads it is told of as one runAll at the
// first command, and answers each of them from that batch once. Any other command goes to the runner as is.
// The readers keep asking for their argv one by one; through the bridge the batch is one round trip.

import type { BatchCommand, CommandResult, CommandRunner, RunOptions } from "./runner.js";
import { runBatch } from "./runner.js";

const key = (argv: readonly string[], stdin: string | undefined): string =>
  JSON.stringify([argv, stdin ?? null]);

export function prefetching(runner: CommandRunner, reads: readonly BatchCommand[]): CommandRunner {
  let batch: Promise<CommandResult[]> | undefined;
  const waiting = new Map<string, number>(reads.map((c, i) => [key(c.argv, c.stdin), i]));
  return {
    run(argv: readonly string[], options: RunOptions): Promise<CommandResult> {
      const k = key(argv, options.stdin);
      const index = waiting.get(k);
      if (index === undefined) return runner.run(argv, options);
      waiting.delete(k);
      batch ??= runBatch(runner, reads);
      return batch.then((results) => results[index] as CommandResult);
    },
    runAll: (commands) => runBatch(runner, commands),
  };
}
