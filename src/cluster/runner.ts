// Running commands: argv arrays, never shell strings. The local runner uses execa; the bridge runner
// (ansible/action_plugins) runs the same argv on the task's target through Ansible's connection.

import type { execa as Execa } from "execa";

export interface CommandResult {
  rc: number;
  stdout: string;
  stderr: string;
  /** True when the command ran past its timeout and was stopped. */
  timedOut: boolean;
}

export interface RunOptions {
  timeoutSeconds: number;
  stdin?: string;
}

/** One read of a batch: an argv without stdin. */
export interface BatchCommand {
  argv: readonly string[];
  timeoutSeconds: number;
}

export interface CommandRunner {
  run(argv: readonly string[], options: RunOptions): Promise<CommandResult>;
  /**
   * Several reads at once, their results in the same order. The bridge runner sends them to the target as
   * one remote command (one round trip); the local runner runs them concurrently. A runner without it runs
   * each with run, concurrently (see runBatch).
   */
  runAll?(commands: readonly BatchCommand[]): Promise<CommandResult[]>;
}

/** Every command of a batch, through the runner's runAll, or through run concurrently when it has none. */
export function runBatch(
  runner: CommandRunner,
  commands: readonly BatchCommand[],
): Promise<CommandResult[]> {
  if (runner.runAll) return runner.runAll(commands);
  return Promise.all(commands.map((c) => runner.run(c.argv, { timeoutSeconds: c.timeoutSeconds })));
}

/** rc of a command that could not be started because it does not exist, as a shell reports it. */
export const RC_NOT_FOUND = 127;

let execaLoaded: Promise<typeof Execa> | undefined;

/**
 * execa, imported on the first command (it is the costliest import of the process): a process
 * that runs no local command, as under the bridge runner, never loads it.
 */
function loadExeca(): Promise<typeof Execa> {
  execaLoaded ??= import("execa").then((m) => m.execa);
  return execaLoaded;
}

export class LocalRunner implements CommandRunner {
  /** Every argv run, in order (the bench counts child processes with it). */
  readonly history: string[][] = [];

  async run(argv: readonly string[], options: RunOptions): Promise<CommandResult> {
    const [file, ...args] = argv;
    if (file === undefined) throw new Error("empty command");
    this.history.push([...argv]);
    const execa = await loadExeca();
    const r = await execa(file, args, {
      reject: false,
      timeout: options.timeoutSeconds * 1000,
      input: options.stdin ?? "",
      stripFinalNewline: false,
      env: { LC_ALL: "C" },
    });
    const notFound = (r as { code?: string }).code === "ENOENT";
    return {
      rc: notFound ? RC_NOT_FOUND : (r.exitCode ?? (r.timedOut ? 124 : 1)),
      stdout: typeof r.stdout === "string" ? r.stdout : "",
      stderr: notFound ? `${file}: not found` : typeof r.stderr === "string" ? r.stderr : "",
      timedOut: r.timedOut,
    };
  }

  runAll(commands: readonly BatchCommand[]): Promise<CommandResult[]> {
    return Promise.all(commands.map((c) => this.run(c.argv, { timeoutSeconds: c.timeoutSeconds })));
  }
}
