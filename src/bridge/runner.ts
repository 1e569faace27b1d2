// Commands under the bridge: each argv goes to the action plugin as an exec op, which runs it on the
// task's target through Ansible's connection and answers with an exec_result of the same id; a batch of
// reads (runAll) goes as one exec of a sh program that runs them all (batch.ts). Several commands may be
// pending at once. Nothing runs locally.

import type { BatchCommand, CommandResult, CommandRunner, RunOptions } from "../cluster/runner.js";
import { runOptions } from "../cluster/runner.js";
import { batchTimeout } from "../cluster/runner.js";
import { batchProgram, parseBatchOutput, TIMEOUT_RC } from "./batch.js";
import type { ExecMessage, ExecResultMessage } from "./protocol.js";

interface Pending {
  resolve(result: CommandResult): void;
  reject(error: Error): void;
}

export class BridgeRunner implements CommandRunner {
  /** Every argv sent, in order. */
  readonly history: string[][] = [];
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closedBecause: string | null = null;

  constructor(private readonly send: (message: ExecMessage) => void) {}

  run(argv: readonly string[], options: RunOptions): Promise<CommandResult> {
    if (argv.length === 0) return Promise.reject(new Error("empty command"));
    this.history.push([...argv]);
    return this.exec(argv, options);
  }

  /** Several reads as one exec of a sh program (src/bridge/batch.ts): one round trip to the target. The
   *  history holds each read's argv. */
  async runAll(commands: readonly BatchCommand[]): Promise<CommandResult[]> {
    const [only] = commands;
    if (only === undefined) return [];
    if (commands.length === 1) return [await this.run(only.argv, runOptions(only))];
    for (const c of commands) this.history.push([...c.argv]);
    const exec = await this.exec(["sh", "-c", batchProgram(commands)], {
      timeoutSeconds: batchTimeout(commands),
    });
    return parseBatchOutput(commands, exec);
  }

  private exec(argv: readonly string[], options: RunOptions): Promise<CommandResult> {
    if (this.closedBecause !== null) return Promise.reject(new Error(this.closedBecause));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({
        op: "exec",
        id,
        argv: [...argv],
        stdin: options.stdin ?? null,
        timeout: options.timeoutSeconds,
      });
    });
  }

  /** Settles command `id` with the plugin's answer; false when no command of that id is pending. */
  deliver(message: ExecResultMessage): boolean {
    const waiting = this.pending.get(message.id);
    if (waiting === undefined) return false;
    this.pending.delete(message.id);
    waiting.resolve({
      rc: message.rc,
      stdout: message.stdout,
      stderr: message.stderr,
      timedOut: message.rc === TIMEOUT_RC,
    });
    return true;
  }

  /** Ids of the commands sent and not answered yet, in the order they were sent. */
  get pendingIds(): number[] {
    return [...this.pending.keys()];
  }

  /** Fails every pending command and every later one with `reason`. */
  close(reason: string): void {
    this.closedBecause ??= reason;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const w of waiting) w.reject(new Error(reason));
  }
}
