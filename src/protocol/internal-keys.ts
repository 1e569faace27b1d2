/**
 * The `_ansible_*` keys Ansible adds to every module's arguments: split from the options,
 * read leniently (a malformed value falls back to the default), never rejected when unknown.
 */
import type { StringConversionAction } from "./coerce.js";
import { coerceBool, coerceInt } from "./coerce.js";

export const INTERNAL_PREFIX = "_ansible_";

export interface AnsibleInternals {
  checkMode: boolean;
  diff: boolean;
  verbosity: number;
  noLog: boolean;
  debug: boolean;
  /** task.action as the user wrote it (e.g. `calico_pool_check` or a FQCN); null when absent. */
  moduleName: string | null;
  /** ansible-core version, e.g. "2.18.1"; null when absent. */
  version: string | null;
  /** 2.19+: events that want a traceback ("error", "warning", ...); null when absent. */
  tracebacksFor: string[] | null;
  ignoreUnknownOpts: boolean;
  stringConversionAction: StringConversionAction;
  /** The remote tmpdir Ansible made (null when becoming an unprivileged user, or absent). */
  tmpdir: string | null;
  /** Every `_ansible_*` key as received, with the prefix, known or not. */
  raw: Record<string, unknown>;
}

function bool(value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  const c = coerceBool(value);
  return c.ok ? (c.value as boolean) : fallback;
}

function int(value: unknown, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  const c = coerceInt(value);
  return c.ok ? (c.value as number) : fallback;
}

function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function stringConversion(value: unknown): StringConversionAction {
  return value === "error" || value === "ignore" ? value : "warn";
}

export function readInternals(raw: Record<string, unknown>): AnsibleInternals {
  const get = (name: string): unknown => raw[INTERNAL_PREFIX + name];
  const tracebacks = get("tracebacks_for");
  return {
    // A _ansible_check_mode that is there but not a boolean is taken as check mode: an unclear request writes nothing
    // (Ansible sends a boolean; AnsibleModule takes any truthy value as check mode).
    checkMode: bool(
      get("check_mode"),
      get("check_mode") !== undefined && get("check_mode") !== null,
    ),
    diff: bool(get("diff"), false),
    verbosity: Math.max(0, int(get("verbosity"), 0)),
    noLog: bool(get("no_log"), false),
    debug: bool(get("debug"), false),
    moduleName: str(get("module_name")),
    version: str(get("version")),
    tracebacksFor: Array.isArray(tracebacks)
      ? tracebacks.filter((t): t is string => typeof t === "string")
      : null,
    ignoreUnknownOpts: bool(get("ignore_unknown_opts"), false),
    stringConversionAction: stringConversion(get("string_conversion_action")),
    tmpdir: str(get("tmpdir")),
    raw,
  };
}

/** Split the args file's dict into the module's options and Ansible's internal keys. */
export function splitInternalKeys(args: Record<string, unknown>): {
  options: Record<string, unknown>;
  internals: AnsibleInternals;
} {
  const options: Record<string, unknown> = {};
  const raw: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (key.startsWith(INTERNAL_PREFIX)) raw[key] = value;
    else options[key] = value;
  }
  return { options, internals: readInternals(raw) };
}

/** Whether a crash should carry its stack in `exception` (AnsibleModule's rule). */
export function wantsTraceback(internals: AnsibleInternals): boolean {
  return (
    internals.debug ||
    internals.verbosity >= 3 ||
    (internals.tracebacksFor !== null && internals.tracebacksFor.includes("error"))
  );
}
