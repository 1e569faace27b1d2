/**
 * A module, independent of how it is run (module mode, bridge, tests): its definition, the
 * context it runs in, and executeModule, which applies Ansible's module protocol around it.
 */
import type { JsonSchemaObject } from "./json-schema.js";
import type { AnsibleInternals } from "./internal-keys.js";
import { splitInternalKeys, wantsTraceback } from "./internal-keys.js";
import { checkModeUnsupported } from "./messages.js";
import { maskText } from "./no-log.js";
import { optionSpecs } from "./option-spec.js";
import type { OptionsValidator } from "./options-validator.js";
import { pyTypeName } from "./python-format.js";
import { failure, finalizeResult, invocationArgs } from "./result.js";
import { validateOptions } from "./validate.js";

export type { JsonSchemaObject } from "./json-schema.js";

export interface ModuleContext<P> {
  params: P;
  checkMode: boolean;
  diff: boolean;
  verbosity: number;
  noLog: boolean;
  moduleName: string;
  ansibleVersion: string | null;
  /** Log a line (to stderr in module mode, a log op under the bridge), shown at verbosity >= n. */
  log(verbosity: number, msg: string): void;
}

export interface ModuleResult {
  changed?: boolean;
  failed?: boolean;
  msg?: string;
  skipped?: boolean;
  warnings?: string[];
  diff?: unknown;
  [key: string]: unknown;
}

export interface ModuleDefinition<P> {
  name: string;
  optionsSchema: JsonSchemaObject;
  /**
   * optionsSchema's checks precompiled by the generator (src/generated/M.options.validator.ts).
   * Without it, optionsSchema is compiled with Ajv at run time.
   */
  validate?: OptionsValidator;
  supportsCheckMode: boolean;
  run(ctx: ModuleContext<P>): Promise<ModuleResult>;
}

/**
 * Where a module's log lines go: stderr in module mode, log ops under the bridge. It receives only
 * the lines to show (verbosity and no_log already applied, no_log values masked) and the verbosity
 * each one asked for.
 */
export type LogSink = (msg: string, verbosity: number) => void;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function errorText(error: unknown): { msg: string; stack: string | undefined } {
  if (error instanceof Error) {
    return { msg: error.message || error.name, stack: error.stack };
  }
  return { msg: String(error), stack: undefined };
}

function makeLogger(
  internals: AnsibleInternals,
  secrets: readonly string[],
  sink: LogSink | undefined,
): (verbosity: number, msg: string) => void {
  return (verbosity, msg) => {
    if (sink === undefined || internals.noLog || internals.verbosity < verbosity) return;
    try {
      sink(maskText(msg, secrets), verbosity);
    } catch {
      // A failing log sink must not fail the module.
    }
  };
}

async function runDefinition<P>(
  def: ModuleDefinition<P>,
  rawArgs: unknown,
  log: LogSink | undefined,
): Promise<Record<string, unknown>> {
  const specs = optionSpecs(def.optionsSchema);
  if (!isPlainObject(rawArgs)) {
    return finalizeResult({
      result: failure(`module arguments must be a JSON object (dict), got ${pyTypeName(rawArgs)}`),
      moduleArgs: {},
      secrets: [],
      warnings: [],
    });
  }
  const { options, internals } = splitInternalKeys(rawArgs);
  const moduleName = internals.moduleName ?? def.name;
  const validation = validateOptions(
    def.optionsSchema,
    options,
    {
      moduleName,
      ignoreUnknownOpts: internals.ignoreUnknownOpts,
      stringConversionAction: internals.stringConversionAction,
    },
    def.validate,
  );
  const finish = (result: Record<string, unknown>): Record<string, unknown> =>
    finalizeResult({
      result,
      moduleArgs: invocationArgs(validation.params, specs),
      secrets: validation.secrets,
      warnings: validation.warnings,
    });

  if (validation.error !== null) return finish(failure(validation.error));
  if (internals.checkMode && !def.supportsCheckMode) {
    return finish({ skipped: true, changed: false, msg: checkModeUnsupported(moduleName) });
  }
  const ctx: ModuleContext<P> = {
    params: validation.params as P,
    checkMode: internals.checkMode,
    diff: internals.diff,
    verbosity: internals.verbosity,
    noLog: internals.noLog,
    moduleName,
    ansibleVersion: internals.version,
    log: makeLogger(internals, validation.secrets, log),
  };
  try {
    const result: unknown = await def.run(ctx);
    if (!isPlainObject(result)) {
      return finish(
        failure(`module ${def.name} returned ${pyTypeName(result)}, not a result object`),
      );
    }
    return finish(result);
  } catch (error) {
    const { msg, stack } = errorText(error);
    const extra = wantsTraceback(internals) && stack !== undefined ? { exception: stack } : {};
    return finish(failure(msg, extra));
  }
}

/**
 * Run a module under Ansible's protocol: split and honour the `_ansible_*` keys, validate the
 * options (first error in AnsibleModule's wording), skip when check mode is unsupported, run,
 * and return the finished result. Never throws.
 */
export async function executeModule<P>(
  def: ModuleDefinition<P>,
  rawArgs: unknown,
  log?: LogSink,
): Promise<Record<string, unknown>> {
  try {
    return await runDefinition(def, rawArgs, log);
  } catch (error) {
    // Only reachable through a broken definition (e.g. an options schema Ajv rejects).
    return failure(`internal error in module ${def.name}: ${errorText(error).msg}`, {
      invocation: { module_args: {} },
    });
  }
}
