// The action plugin's side of the bridge, in memory: runBridge over PassThrough streams, answering each exec
// op from recorded command output (test/support/calico-json.ts), as the plugin would after running it.

import { basename } from "node:path";
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { runBridge } from "../../../../src/bridge/main.js";
import type { ExecMessage } from "../../../../src/bridge/protocol.js";
import type { Answer, Script } from "../../../support/fake-commands.js";

export type Answerer = (exec: ExecMessage) => Answer | undefined;

/** The words of a sh command line made of plain words and single-quoted parts (as shellWord writes them). */
function shWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/(?:'[^']*'|\\.|[^\s'\\])+/g))
    words.push(
      m[0].replace(
        /'([^']*)'|\\(.)/g,
        (_, quoted: string | undefined, escaped: string | undefined) => quoted ?? escaped ?? "",
      ),
    );
  return words;
}

/**
 * The reads of a batch exec (src/bridge/batch.ts: sh -c PROGRAM), each as an exec of its own with its argv
 * and timeout; undefined for any other exec.
 */
export function batchReads(exec: ExecMessage): ExecMessage[] | undefined {
  const [sh, flag, program] = exec.argv;
  if (sh !== "sh" || flag !== "-c" || !program?.includes("d=$(mktemp -d)")) return undefined;
  const reads: ExecMessage[] = [];
  // A read with stdin is "printf %s <base64> | base64 -d | timeout ...".
  for (const m of program.matchAll(
    /\((?:printf %s ([A-Za-z0-9+/=]+) \| base64 -d \| )?(timeout .*?) >"\$d\/\d+o" 2>/g,
  )) {
    const [, , , seconds, ...argv] = shWords(m[2] ?? "");
    const stdin = m[1] === undefined ? null : Buffer.from(m[1], "base64").toString("utf8");
    reads.push({ op: "exec", id: exec.id, argv, stdin, timeout: Number(seconds) });
  }
  return reads;
}

/** What the batch program prints for these answers: one frame line per read. */
function frames(answers: Answer[]): Answer {
  const b64 = (text: string | undefined) => Buffer.from(text ?? "").toString("base64");
  return {
    stdout: answers
      .map((a, i) => `calico-encap-batch ${i} ${a.rc ?? 0} ${b64(a.stdout)} ${b64(a.stderr)}\n`)
      .join(""),
  };
}

/** Answers from stand-in scripts keyed by program name (the argv[0] basename); undefined leaves it pending.
 *  A batch exec gets each of its reads' answers framed as the batch program frames them. */
export function scriptAnswerer(scripts: Record<string, Script>): Answerer {
  const one = (exec: ExecMessage): Answer => {
    const script = scripts[basename(exec.argv[0] ?? "")] ?? {};
    const key = exec.argv.slice(1).join(" ");
    const answer = script[key] ??
      script["*"] ?? { rc: 3, stderr: `stand-in: no answer for ${key}` };
    if (answer.stdin !== undefined && answer.stdin !== (exec.stdin ?? ""))
      return { rc: 3, stderr: `stand-in: stdin differs for ${key}` };
    return answer;
  };
  return (exec) => {
    const reads = batchReads(exec);
    return reads === undefined ? one(exec) : frames(reads.map(one));
  };
}

export interface Conversation {
  /** Every message the backend wrote, in order. */
  messages: Record<string, unknown>[];
  execs: ExecMessage[];
  /** Every command run on the target: each exec, or each read of a batch exec. */
  commands: ExecMessage[];
  logs: { level: number; msg: string }[];
  result: Record<string, unknown> | undefined;
  /** The most exec ops that were waiting for an answer at once. */
  maxPending: number;
  stderr: string;
}

export interface ConverseOptions {
  answer?: Answerer;
  /** Called on each exec op before it is answered; may write to the bridge's input itself. */
  onExec?: (exec: ExecMessage, input: PassThrough) => void;
  /** Close the bridge's input after the first lines (no exec can then be answered). */
  endInput?: boolean;
}

/** Sends `first` lines (each without its newline), answers exec ops, and returns once runBridge returns. */
export async function converse(
  first: string[],
  options: ConverseOptions = {},
): Promise<Conversation> {
  const input = new PassThrough();
  const output = new PassThrough();
  let stderr = "";
  const c: Conversation = {
    messages: [],
    execs: [],
    commands: [],
    logs: [],
    result: undefined,
    maxPending: 0,
    stderr: "",
  };
  const pending = new Set<number>();
  const lines = createInterface({ input: output, crlfDelay: Infinity });
  lines.on("line", (line) => {
    const m = JSON.parse(line) as Record<string, unknown>;
    c.messages.push(m);
    if (m.op === "log") c.logs.push(m as { level: number; msg: string });
    if (m.op === "result") c.result = m.result as Record<string, unknown>;
    if (m.op !== "exec") return;
    const exec = m as unknown as ExecMessage;
    c.execs.push(exec);
    c.commands.push(...(batchReads(exec) ?? [exec]));
    pending.add(exec.id);
    c.maxPending = Math.max(c.maxPending, pending.size);
    options.onExec?.(exec, input);
    const a = options.answer?.(exec);
    if (a === undefined) return;
    // Answered a little later, as over a real connection, so concurrent commands overlap.
    setTimeout(() => {
      pending.delete(exec.id);
      input.write(
        `${JSON.stringify({ op: "exec_result", id: exec.id, rc: a.rc ?? 0, stdout: a.stdout ?? "", stderr: a.stderr ?? "" })}\n`,
      );
    }, 2);
  });
  const running = runBridge(input, output, {
    write: (text: string) => {
      stderr += text;
    },
  });
  for (const line of first) input.write(`${line}\n`);
  if (options.endInput) input.end();
  await running;
  output.end();
  await new Promise((resolve) => lines.once("close", resolve));
  c.stderr = stderr;
  return c;
}

/** The run op's line. */
export function runLine(module: string, args: Record<string, unknown>): string {
  return JSON.stringify({ op: "run", module, args });
}
