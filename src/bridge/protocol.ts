/**
 * The bridge's messages: one JSON object per line between an action plugin (ansible/action_plugins)
 * and `calico-encap bridge`. Pure: parsing with clear errors, and encoding. No I/O.
 *
 *   plugin -> backend: {"op":"run","module":M,"args":{...}}
 *                      {"op":"exec_result","id":N,"rc":R,"stdout":S,"stderr":E}
 *   backend -> plugin: {"op":"exec","id":N,"argv":[...],"stdin":S|null,"timeout":T}
 *                      {"op":"log","level":V,"msg":S}
 *                      {"op":"result","result":{...}}
 */
import { serializeResult } from "../protocol/emit.js";
import { pyTypeName } from "../protocol/python-format.js";

export interface RunMessage {
  op: "run";
  module: string;
  /** The task's args plus Ansible's `_ansible_*` keys, as a module's args file holds them. */
  args: Record<string, unknown>;
  /** The plugin's build (a collection's; src/build-id.ts); absent from a checkout's plugin. */
  build?: string;
}

export interface ExecResultMessage {
  op: "exec_result";
  id: number;
  rc: number;
  stdout: string;
  stderr: string;
}

export type PluginMessage = RunMessage | ExecResultMessage;

export interface ExecMessage {
  op: "exec";
  id: number;
  argv: string[];
  /** Text for the command's stdin, or null for none. */
  stdin: string | null;
  /** Seconds the command may run on the target before it is stopped. */
  timeout: number;
}

export interface LogMessage {
  op: "log";
  /** The Ansible verbosity (number of -v) at which the plugin shows the line. */
  level: number;
  msg: string;
}

export interface ResultMessage {
  op: "result";
  result: Record<string, unknown>;
}

export type BackendMessage = ExecMessage | LogMessage | ResultMessage;

export type ParseOutcome = { ok: true; message: PluginMessage } | { ok: false; error: string };

const EXCERPT_CHARS = 120;

/** What to do about any protocol error: the two halves of the bridge disagree. */
export const PROTOCOL_ADVICE =
  "The action plugins (ansible/action_plugins) and the calico-encap backend must come from the same calico-encap release: install them together.";

function excerpt(line: string): string {
  return JSON.stringify(line.length > EXCERPT_CHARS ? `${line.slice(0, EXCERPT_CHARS)}...` : line);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function bad(observed: string): ParseOutcome {
  return {
    ok: false,
    error: `the action plugin sent ${observed}; expected one JSON object per line with op "run" or "exec_result". ${PROTOCOL_ADVICE}`,
  };
}

function describe(value: unknown): string {
  return JSON.stringify(value) ?? pyTypeName(value);
}

function parseRun(m: Record<string, unknown>, line: string): ParseOutcome {
  if (typeof m.module !== "string" || m.module === "")
    return bad(
      `a run op without a module name (module: ${describe(m.module)}) in ${excerpt(line)}`,
    );
  if (!isPlainObject(m.args))
    return bad(
      `a run op whose args are of type ${pyTypeName(m.args)}, not a JSON object, in ${excerpt(line)}`,
    );
  if (m.build !== undefined && typeof m.build !== "string")
    return bad(
      `a run op whose build is of type ${pyTypeName(m.build)}, not a string, in ${excerpt(line)}`,
    );
  return {
    ok: true,
    message: {
      op: "run",
      module: m.module,
      args: m.args,
      ...(m.build === undefined ? {} : { build: m.build }),
    },
  };
}

function parseExecResult(m: Record<string, unknown>, line: string): ParseOutcome {
  if (typeof m.id !== "number" || !Number.isInteger(m.id) || m.id < 1)
    return bad(
      `an exec_result whose id is ${describe(m.id)}, not a command number, in ${excerpt(line)}`,
    );
  if (typeof m.rc !== "number" || !Number.isInteger(m.rc))
    return bad(`an exec_result whose rc is ${describe(m.rc)}, not an integer, in ${excerpt(line)}`);
  for (const key of ["stdout", "stderr"] as const)
    if (typeof m[key] !== "string")
      return bad(
        `an exec_result whose ${key} is of type ${pyTypeName(m[key])}, not a string, in ${excerpt(line)}`,
      );
  return {
    ok: true,
    message: {
      op: "exec_result",
      id: m.id,
      rc: m.rc,
      stdout: m.stdout as string,
      stderr: m.stderr as string,
    },
  };
}

/** One line from the plugin (without its newline) as a message, or what is wrong with it. */
export function parsePluginLine(line: string): ParseOutcome {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return bad(`a line that is not JSON: ${excerpt(line)}`);
  }
  if (!isPlainObject(value))
    return bad(`JSON of type ${pyTypeName(value)}, not an object: ${excerpt(line)}`);
  if (value.op === "run") return parseRun(value, line);
  if (value.op === "exec_result") return parseExecResult(value, line);
  if (value.op === undefined) return bad(`an object without "op": ${excerpt(line)}`);
  return bad(`op ${describe(value.op)} in ${excerpt(line)}`);
}

/** The result op for a result; a result that cannot be serialized becomes a failure. */
export function resultMessage(result: Record<string, unknown>): ResultMessage {
  return { op: "result", result: serializeResult(result).printed };
}

/** One message as the line to write (JSON escapes every newline inside strings). */
export function encodeMessage(message: BackendMessage): string {
  return `${JSON.stringify(message)}\n`;
}
