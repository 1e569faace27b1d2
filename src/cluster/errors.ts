// A datastore read that did not give what calicoctl or kubectl prints: says the command, what came back,
// what was expected, and what to do.

import { basename } from "node:path";
import type { CommandResult } from "./runner.js";
import { RC_NOT_FOUND, commandMissing } from "./runner.js";

function excerpt(text: string, max = 300): string {
  const t = text.trim();
  if (t === "") return "(empty)";
  return t.length > max ? `${t.slice(0, max)}...` : t;
}

export function commandLine(argv: readonly string[]): string {
  return argv
    .map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`))
    .join(" ");
}

/** The coreutils the commands on the target run through (the bridge's batch: timeout, base64, mktemp). */
const COREUTILS = ["timeout", "base64", "mktemp"];

/**
 * The command a shell says it could not find ("sh: 1: timeout: not found", "bash: line 1: base64: command not found",
 * the batch's "calico-encap-batch: mktemp not found on the target"), by its base name; null when the stderr names none.
 */
export function missingTool(stderr: string): string | null {
  const m = /(?:^|[\s:])([^\s:]+):? (?:command )?not found/.exec(stderr);
  return m?.[1] ? basename(m[1]) : null;
}

export class DatastoreError extends Error {
  constructor(
    readonly argv: readonly string[],
    readonly observed: string,
    readonly expected: string,
    readonly todo: string,
  ) {
    super(`${commandLine(argv)}: ${observed}; expected ${expected}. ${todo}`);
    this.name = "DatastoreError";
  }

  /**
   * A command that did not exit 0. One the shell could not find (exit code 127) says so, whatever `todo` says: the
   * command, or a tool it runs, is missing where the commands run.
   */
  static failed(argv: readonly string[], r: CommandResult, todo: string): DatastoreError {
    if (commandMissing(r)) {
      const observed = `failed with exit code ${RC_NOT_FOUND} (command not found), stderr: ${excerpt(r.stderr)}`;
      const tool = missingTool(r.stderr);
      if (tool !== null && COREUTILS.includes(tool))
        return new DatastoreError(
          argv,
          observed,
          `${tool} to run`,
          `Install coreutils (${COREUTILS.join(", ")}: the commands run through them) on the host that runs the commands (the task's target).`,
        );
      const name = argv[0] ?? "the command";
      return new DatastoreError(
        argv,
        observed,
        `${name} to run`,
        `Install ${basename(name)} on the host that runs the commands (the task's target), or set the option that names its path (kubectl_path, calicoctl_path) to where it is.`,
      );
    }
    const how = r.timedOut ? "timed out" : `failed with exit code ${r.rc}`;
    return new DatastoreError(argv, `${how}, stderr: ${excerpt(r.stderr)}`, "exit code 0", todo);
  }

  static unparsable(argv: readonly string[], stdout: string, expected: string): DatastoreError {
    return new DatastoreError(
      argv,
      `printed ${excerpt(stdout, 200)}`,
      expected,
      "Check that the command is calicoctl (or Kubespray's calicoctl.sh) or kubectl and that it reaches the cluster.",
    );
  }
}
