// --vars FILE: a Kubespray group_vars YAML file, its variables mapped to module options through the
// schema's x-kubespray-variable (calico_ipip_mode -> ipip_mode). Only the mapping is done here: the
// module's validator converts and checks the values, as it does for Ansible's.

import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import type { OptionFlag } from "./flags.js";
import type { Given } from "./parse.js";

export interface VarsFile {
  path: string;
  vars: Record<string, unknown>;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: string };

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A group_vars file's variables. YAML 1.1, as Ansible reads it (yes/no are booleans). */
export function parseVarsText(text: string, path: string): Outcome<VarsFile> {
  if (text.trimStart().startsWith("$ANSIBLE_VAULT"))
    return { ok: false, error: `--vars ${path} is encrypted with ansible-vault; decrypt it first` };
  let doc: unknown;
  try {
    doc = parse(text, { version: "1.1", logLevel: "error" });
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return { ok: false, error: `--vars ${path} is not valid YAML: ${why}` };
  }
  if (doc === null || doc === undefined) return { ok: true, value: { path, vars: {} } };
  if (!isMapping(doc))
    return {
      ok: false,
      error: `--vars ${path} is not a mapping of variables (a group_vars file has "name: value" lines)`,
    };
  return { ok: true, value: { path, vars: doc } };
}

export async function readVarsFiles(
  paths: readonly string[],
  read: (path: string) => Promise<string> = (p) => readFile(p, "utf8"),
): Promise<Outcome<VarsFile[]>> {
  const files: VarsFile[] = [];
  for (const path of paths) {
    let text: string;
    try {
      text = await read(path);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      return { ok: false, error: `--vars ${path} cannot be read: ${why}` };
    }
    const parsed = parseVarsText(text, path);
    if (!parsed.ok) return parsed;
    files.push(parsed.value);
  }
  return { ok: true, value: files };
}

export interface FromVars {
  /** Option values the files set, by option name. */
  options: Record<string, Given>;
  /** Options whose variable holds a Jinja expression that cannot be resolved here: the reason. */
  unresolved: Record<string, string>;
}

const BARE_REFERENCE = /^\s*\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\s*$/;

function isJinja(v: unknown): v is string {
  return typeof v === "string" && /\{\{|\{%/.test(v);
}

/**
 * The option values the files give (a later file overrides an earlier one, as group_vars files
 * loaded in order do). A value that is only a reference to another variable of the files
 * ("{{ kube_pods_subnet }}") is followed; any other Jinja cannot be evaluated outside Ansible.
 */
export function optionsFromVars(
  flags: readonly OptionFlag[],
  files: readonly VarsFile[],
): FromVars {
  const merged = new Map<string, { value: unknown; path: string }>();
  for (const f of files)
    for (const [name, value] of Object.entries(f.vars)) merged.set(name, { value, path: f.path });
  const out: FromVars = { options: {}, unresolved: {} };
  for (const flag of flags) {
    const variable = flag.kubesprayVariable;
    const found = variable === null ? undefined : merged.get(variable);
    if (variable === null || found === undefined) continue;
    const source = `${variable} in ${found.path}`;
    let value = found.value;
    const seen = new Set([variable]);
    for (let ref = BARE_REFERENCE.exec(String(value)); isJinja(value) && ref?.[1];) {
      const target = merged.get(ref[1]);
      if (target === undefined || seen.has(ref[1])) break;
      seen.add(ref[1]);
      value = target.value;
      ref = BARE_REFERENCE.exec(String(value));
    }
    if (isJinja(value)) {
      out.unresolved[flag.option] =
        `${source} is ${JSON.stringify(found.value)}, a Jinja expression calico-encap cannot evaluate outside Ansible: give ${flag.aliases[0] ?? flag.flag} instead, or a plain value in the file`;
      continue;
    }
    out.options[flag.option] = { value, source };
  }
  return out;
}
