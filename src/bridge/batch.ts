/**
 * Several reads in one remote command: a POSIX sh program that runs each argv concurrently under coreutils
 * `timeout` (with its stdin, carried as base64, or none), waits for all, and prints one frame line per argv. The bridge sends it as one exec, so the reads
 * of an observation cost one round trip to the target. Pure: the program's text and the parsing of its output.
 *
 * Frame line, one per argv, in order:  calico-encap-batch <index> <rc> <base64 stdout> <base64 stderr>
 * base64 (coreutils) carries any bytes; an empty output is an empty field. Lines that are not frames (a
 * login banner, a shell's noise) are ignored. A target without base64, mktemp or timeout gets no frame at all (the
 * program exits 127 saying which), and the program's own stderr is added to every read that failed.
 */
import { KILL_AFTER, type BatchCommand, type CommandResult } from "../cluster/runner.js";

/** Exit code of coreutils `timeout` when it stopped the command. */
export const TIMEOUT_RC = 124;
/** Exit code of a command `timeout -k` had to KILL after its TERM (128 + SIGKILL): timed out too. */
export const KILLED_RC = 137;
/** Exit code of the program when the target lacks a tool it needs (base64, mktemp, timeout). */
export const MISSING_TOOL_RC = 127;
/** rc given to an argv for which the program printed no frame, when the exec itself reported success. */
export const NO_FRAME_RC = 255;

const FRAME = /^calico-encap-batch (\d+) (\d+) ([A-Za-z0-9+/=]*) ([A-Za-z0-9+/=]*)$/;

/** One word for sh: as is when it has nothing sh would interpret, else in single quotes. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The sh program, on one line (as it shows in Ansible's -vvv log): runs every command at once, prints their
 *  frames. */
export function batchProgram(commands: readonly BatchCommand[]): string {
  const starts = commands.map((c, i) => {
    const words = ["timeout", "-k", String(KILL_AFTER), String(c.timeoutSeconds), ...c.argv];
    const command = `${words.map(shellWord).join(" ")} >"$d/${i}o" 2>"$d/${i}e"`;
    // stdin as base64 (only [A-Za-z0-9+/=], a word sh leaves alone), decoded into the command; none is /dev/null.
    const run = c.stdin
      ? `printf %s ${Buffer.from(c.stdin, "utf8").toString("base64")} | base64 -d | ${command}`
      : `${command} </dev/null`;
    return `(${run}; echo $? >"$d/${i}r") &`;
  });
  // No single quote of its own (only in quoted argv words), so it reads plainly inside the plugin's quoting.
  return [
    // Without these the frames would carry empty output with rc 0: say so and stop before running anything.
    `for t in base64 mktemp timeout; do command -v $t >/dev/null 2>&1 || { echo "calico-encap-batch: $t not found on the target" >&2; exit ${MISSING_TOOL_RC}; }; done;`,
    // The traps first, so no signal finds the folder made and no trap set ($d is read when the trap runs). dash and
    // busybox sh run no EXIT trap when a signal ends them: each signal's trap exits, which runs it.
    'd=; trap "[ -z \\"\\$d\\" ] || rm -rf \\"\\$d\\"" EXIT; trap "exit 129" HUP; trap "exit 130" INT; trap "exit 143" TERM;',
    "d=$(mktemp -d) || exit 125;",
    ...starts,
    "wait;",
    // The frames with sh's builtins but one base64 per non-empty output: `read` takes the rc, and printf joins
    // base64's lines (the words of its unquoted output: only [A-Za-z0-9+/=], nothing sh would expand) into one.
    `i=0; while [ "$i" -lt ${commands.length} ]; do`,
    'r=; [ -f "$d/${i}r" ] && read -r r <"$d/${i}r"; printf "calico-encap-batch %s %s " "$i" "${r:-255}";',
    '[ -s "$d/${i}o" ] && printf %s $(base64 <"$d/${i}o"); printf " ";',
    '[ -s "$d/${i}e" ] && printf %s $(base64 <"$d/${i}e"); printf "\\n";',
    "i=$((i + 1)); done",
  ].join(" ");
}

function decode(field: string): string {
  return Buffer.from(field, "base64").toString("utf8");
}

/**
 * Each command's result from the program's exec result. An argv without a frame (the program was stopped, the
 * connection failed, sh or base64 is missing) gets the exec's own rc and stderr, so the caller reports what
 * happened on the target.
 */
export function parseBatchOutput(
  commands: readonly BatchCommand[],
  exec: { rc: number; stdout: string; stderr: string },
): CommandResult[] {
  const frames = new Map<number, CommandResult>();
  // What the program itself said on stderr (a full disk, a failed redirect) belongs to every read that failed.
  const own = exec.stderr.trim();
  for (const line of exec.stdout.split("\n")) {
    const m = FRAME.exec(line.replace(/\r$/, ""));
    if (m === null) continue;
    const rc = Number(m[2]);
    const stderr = decode(m[4] ?? "");
    frames.set(Number(m[1]), {
      rc,
      stdout: decode(m[3] ?? ""),
      stderr:
        rc !== 0 && own !== ""
          ? `${stderr}${stderr === "" || stderr.endsWith("\n") ? "" : "\n"}the batch program on the target: ${own}`
          : stderr,
      timedOut: rc === TIMEOUT_RC || rc === KILLED_RC,
    });
  }
  return commands.map((c, i) => {
    const frame = frames.get(i);
    if (frame !== undefined) return frame;
    const rc = exec.rc === 0 ? NO_FRAME_RC : exec.rc;
    const why = exec.stderr.trim() || `no output for it (exit code ${exec.rc})`;
    return {
      rc,
      stdout: "",
      stderr: `the batch of ${commands.length} reads on the target returned no result for ${c.argv.join(" ")}: ${why}`,
      timedOut: exec.rc === TIMEOUT_RC,
    };
  });
}
