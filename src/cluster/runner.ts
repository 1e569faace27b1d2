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

/** One read of a batch: an argv, and what it reads on stdin when it takes its request from there (calicoctl get -f -). */
export interface BatchCommand {
  argv: readonly string[];
  timeoutSeconds: number;
  stdin?: string;
}

/**
 * One verb on one resource (kubectl's resource.group form), on one object where the write names it: what a write's
 * command needs of the kubeconfig's identity (src/cluster/permissions.ts asks the API server).
 */
export interface Permission {
  verb: string;
  resource: string;
  name?: string;
  namespace?: string;
}

/** Seconds between coreutils timeout's TERM and KILL, for a single command and for each command of a batch. */
export const KILL_AFTER = 5;

/** Seconds a batch may run as one remote command: the longest command with its grace, and some for the framing. */
export function batchTimeout(commands: readonly BatchCommand[]): number {
  return Math.max(0, ...commands.map((c) => c.timeoutSeconds)) + KILL_AFTER + 5;
}

/** A batch command's options for a single run. */
export function runOptions(c: BatchCommand): RunOptions {
  return c.stdin === undefined
    ? { timeoutSeconds: c.timeoutSeconds }
    : { timeoutSeconds: c.timeoutSeconds, stdin: c.stdin };
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
  return Promise.all(commands.map((c) => runner.run(c.argv, runOptions(c))));
}

/** rc of a command that could not be started because it does not exist, as a shell reports it. */
export const RC_NOT_FOUND = 127;

/** The command could not be started: the shell (or coreutils timeout) did not find it. */
export function commandMissing(r: CommandResult): boolean {
  return r.rc === RC_NOT_FOUND;
}

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
    // Its own process group, killed whole at the timeout (as coreutils timeout does on the bridge's targets): a
    // wrapper such as Kubespray's calicoctl.sh runs calicoctl as a child, which would otherwise keep the pipes
    // open, and the call hanging, long after the wrapper was killed.
    const child = execa(file, args, {
      reject: false,
      detached: true,
      input: options.stdin ?? "",
      stripFinalNewline: false,
      env: { LC_ALL: "C" },
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }, options.timeoutSeconds * 1000);
    const r = await child.finally(() => clearTimeout(timer));
    const notFound = (r as { code?: string }).code === "ENOENT";
    return {
      rc: notFound ? RC_NOT_FOUND : timedOut ? 124 : (r.exitCode ?? 1),
      stdout: typeof r.stdout === "string" ? r.stdout : "",
      stderr: notFound ? `${file}: not found` : typeof r.stderr === "string" ? r.stderr : "",
      timedOut,
    };
  }

  runAll(commands: readonly BatchCommand[]): Promise<CommandResult[]> {
    return Promise.all(commands.map((c) => this.run(c.argv, runOptions(c))));
  }
}
