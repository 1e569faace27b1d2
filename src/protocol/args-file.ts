/**
 * The args file Ansible writes for WANT_JSON modules: one flat JSON dict of the task's options
 * and `_ansible_*` keys (not wrapped in ANSIBLE_MODULE_ARGS).
 */
import { readFile } from "node:fs/promises";
import { failure } from "./result.js";

export type ArgsFileOutcome =
  { ok: true; args: unknown } | { ok: false; result: Record<string, unknown> };

/** Parse the text of an args file (pure). */
export function parseArgsText(text: string, path: string): ArgsFileOutcome {
  try {
    return { ok: true, args: JSON.parse(text) as unknown };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const hint = /^\s*\w+=/.test(text)
      ? " It looks like key=value arguments: the module wrapper must contain WANT_JSON."
      : "";
    return {
      ok: false,
      result: failure(`the arguments file ${path} is not valid JSON: ${why}.${hint}`),
    };
  }
}

/** Read and parse the args file; a missing or unreadable file is a failed result naming it. */
export async function readArgsFile(path: string): Promise<ArgsFileOutcome> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, result: failure(`cannot read the arguments file ${path}: ${why}`) };
  }
  return parseArgsText(text, path);
}
