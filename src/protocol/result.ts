/**
 * The result object a module returns to Ansible: `changed` always present, `invocation`
 * with the options after defaults, no_log values removed everywhere.
 */
import { NO_LOG_PLACEHOLDER, removeValues } from "./no-log.js";
import type { OptionSpec } from "./option-spec.js";

/** invocation.module_args: the params, each no_log option's (non-null) value replaced. */
export function invocationArgs(
  params: Record<string, unknown>,
  specs: readonly OptionSpec[],
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...params };
  for (const spec of specs) {
    if (spec.noLog && out[spec.name] !== null && out[spec.name] !== undefined) {
      out[spec.name] = NO_LOG_PLACEHOLDER;
    }
  }
  return out;
}

export interface FinalizeInput {
  result: Record<string, unknown>;
  moduleArgs: Record<string, unknown>;
  secrets: readonly string[];
  /** Warnings raised before the module ran (alias clashes, string conversions). */
  warnings: readonly string[];
}

/** Fill in `changed`, merge warnings, add invocation, remove secrets. */
export function finalizeResult({
  result,
  moduleArgs,
  secrets,
  warnings,
}: FinalizeInput): Record<string, unknown> {
  const out: Record<string, unknown> = { ...result };
  out.changed = out.changed === true;
  if (out.failed !== undefined) out.failed = out.failed === true;
  const own = Array.isArray(out.warnings) ? (out.warnings as unknown[]).map(String) : [];
  const allWarnings = [...warnings, ...own];
  if (allWarnings.length > 0) out.warnings = allWarnings;
  else delete out.warnings;
  out.invocation = { module_args: moduleArgs };
  return removeValues(out, secrets) as Record<string, unknown>;
}

/** A failed result for an error that happened outside the module's own code. */
export function failure(msg: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...extra, failed: true, changed: false, msg };
}
