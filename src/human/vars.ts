// --vars FILE: a Kubespray group_vars YAML file, its variables mapped to module options through the
// schema's x-kubespray-variable (calico_ipip_mode -> ipip_mode) and x-kubespray-fallback
// (kube_pods_subnet -> pool_cidr when calico_pool_cidr is unset). Only the mapping is done here: the
// module's validator converts and checks the values, as it does for Ansible's.

import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { bareFallback, parseFallback } from "../calico/shared/kubespray-fallback.js";
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
  /** Options whose variable cannot be resolved here (a Jinja expression): the reason. */
  unresolved: Record<string, string>;
}

const BARE_REFERENCE = /^\s*\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\s*$/;

function isJinja(v: unknown): v is string {
  return typeof v === "string" && /\{\{|\{%/.test(v);
}

type Merged = ReadonlyMap<string, { value: unknown; path: string }>;

interface Found {
  /** The value, a bare reference to another variable of the files followed. */
  value: unknown;
  /** As written in the file. */
  written: unknown;
  /** "kube_pods_subnet in k8s-cluster.yml" */
  source: string;
}

/** A variable's value from the files, or undefined when no file sets it. */
function lookup(merged: Merged, variable: string): Found | undefined {
  const found = merged.get(variable);
  if (found === undefined) return undefined;
  let value = found.value;
  const seen = new Set([variable]);
  for (let ref = BARE_REFERENCE.exec(String(value)); isJinja(value) && ref?.[1];) {
    const target = merged.get(ref[1]);
    if (target === undefined || seen.has(ref[1])) break;
    seen.add(ref[1]);
    value = target.value;
    ref = BARE_REFERENCE.exec(String(value));
  }
  return { value, written: found.value, source: `${variable} in ${found.path}` };
}

type Resolution = { given: Given } | { unresolved: string } | undefined;

function unevaluable(flag: OptionFlag, v: Found): Resolution {
  return {
    unresolved: `${v.source} is ${JSON.stringify(v.written)}, a Jinja expression calico-encap cannot evaluate outside Ansible: give ${flag.aliases[0] ?? flag.flag} instead, or a plain value in the file`,
  };
}

/** The option's value from x-kubespray-fallback; undefined when a variable it names is undefined. */
function fromFallback(flag: OptionFlag, template: string, merged: Merged): Resolution {
  const parts = parseFallback(template);
  const found: Found[] = [];
  for (const part of parts) {
    if (!("variable" in part)) continue;
    const v = lookup(merged, part.variable);
    if (v === undefined) return undefined;
    if (isJinja(v.value)) return unevaluable(flag, v);
    found.push(v);
  }
  const source = found.map((v) => v.source).join(", ");
  if (bareFallback(template) !== null) return { given: { value: found[0]?.value, source } };
  const notText = found.find((v) => typeof v.value !== "string" && typeof v.value !== "number");
  if (notText !== undefined)
    return {
      unresolved: `${notText.source} is ${JSON.stringify(notText.value)}, not text to make ${flag.option} (${template}) from: give ${flag.aliases[0] ?? flag.flag} instead, or a plain value in the file`,
    };
  const values = found.map((v) => String(v.value));
  return {
    given: { value: parts.map((p) => ("text" in p ? p.text : values.shift())).join(""), source },
  };
}

/** The option's own variable, else its fallback, else undefined (the schema's default applies). */
function resolve(flag: OptionFlag, merged: Merged): Resolution {
  const own = flag.kubesprayVariable === null ? undefined : lookup(merged, flag.kubesprayVariable);
  if (own !== undefined)
    return isJinja(own.value)
      ? unevaluable(flag, own)
      : { given: { value: own.value, source: own.source } };
  return flag.kubesprayFallback === null
    ? undefined
    : fromFallback(flag, flag.kubesprayFallback, merged);
}

/**
 * The option values the files give (a later file overrides an earlier one, as group_vars files
 * loaded in order do), as Kubespray takes them: the option's variable (x-kubespray-variable), else
 * its fallback (x-kubespray-fallback: calico_pool_cidr, else kube_pods_subnet), else nothing (the
 * schema's default applies). A value that is only a reference to another variable of the files
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
    const r = resolve(flag, merged);
    if (r === undefined) continue;
    if ("unresolved" in r) out.unresolved[flag.option] = r.unresolved;
    else out.options[flag.option] = r.given;
  }
  return out;
}
