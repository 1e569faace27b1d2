/**
 * Module mode's output: exactly one JSON object and a newline on stdout, exit code 0 or 1,
 * and log lines on stderr that can never be mistaken for the result.
 */

export interface TextSink {
  write(text: string): unknown;
}

/** The line to print for a result, and the result it stands for (a failure if unserializable). */
export function serializeResult(result: Record<string, unknown>): {
  line: string;
  printed: Record<string, unknown>;
} {
  try {
    const text = JSON.stringify(result);
    if (typeof text === "string" && text.startsWith("{"))
      return { line: text + "\n", printed: result };
    throw new Error("the result is not an object");
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const printed = {
      failed: true,
      changed: false,
      msg: `the module's result could not be serialized as JSON: ${why}`,
    };
    return { line: JSON.stringify(printed) + "\n", printed };
  }
}

/** The one line to print for a result; a result that cannot be serialized becomes a failure. */
export function resultLine(result: Record<string, unknown>): string {
  return serializeResult(result).line;
}

/** Exit code for a result: 1 when it failed, else 0 (Ansible ignores it once the JSON parses). */
export function exitCodeOf(result: Record<string, unknown>): number {
  return result.failed === true ? 1 : 0;
}

/** Write the result and set process.exitCode; the process then ends on its own, flushing stdout. */
export function emitResult(
  result: Record<string, unknown>,
  out: TextSink = process.stdout,
  setExitCode: (code: number) => void = (code) => {
    process.exitCode = code;
  },
): void {
  const { line, printed } = serializeResult(result);
  out.write(line);
  setExitCode(exitCodeOf(printed));
}

/** Format a log message for stderr: every line prefixed, so no line starts with "{". */
export function formatLogLines(msg: string, prefix = "calico-encap: "): string {
  return (
    msg
      .split(/\r?\n/)
      .map((line) => prefix + line)
      .join("\n") + "\n"
  );
}

/** A log function writing prefixed lines to a sink (stderr by default). */
export function stderrLogger(err: TextSink = process.stderr): (msg: string) => void {
  return (msg) => {
    err.write(formatLogLines(msg));
  };
}
