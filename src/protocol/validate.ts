/**
 * Validate a module's options the way AnsibleModule does, reporting its first error in its
 * order: aliases, no_log values, unknown names noted, defaults, required, types (with Ansible's
 * conversions), choices, other schema checks (pattern, range: Ajv), unknown names last.
 *
 * Two deliberate differences from Ansible: an explicit null counts as not given (so an option
 * with a default gets it, and a required option given null is missing), which keeps the
 * generated *Params types honest.
 */
import type { StringConversionAction } from "./coerce.js";
import { coerce } from "./coerce.js";
import { compileSchema } from "./ajv.js";
import type { JsonSchemaObject } from "./json-schema.js";
import type { OptionsValidator } from "./options-validator.js";
import * as messages from "./messages.js";
import { secretStrings } from "./no-log.js";
import type { OptionSpec } from "./option-spec.js";
import { aliasTable, optionSpecs } from "./option-spec.js";
import { mapSchemaErrors } from "./schema-errors.js";

export interface ValidationSettings {
  /** Shown in the unsupported-parameters message. */
  moduleName: string;
  ignoreUnknownOpts: boolean;
  stringConversionAction: StringConversionAction;
}

export interface ValidationOutcome {
  /** Every option of the schema: the converted value, else its default, else null. */
  params: Record<string, unknown>;
  /** Text of every no_log option's value (given or default), to remove from the result. */
  secrets: string[];
  warnings: string[];
  /** The first error, in AnsibleModule's order; null when the options are valid. */
  error: string | null;
}

/** Resolve aliases (an alias wins over its option, with a warning when both are set). */
function resolveAliases(
  specs: readonly OptionSpec[],
  given: Record<string, unknown>,
  warnings: string[],
): { values: Record<string, unknown>; unsupported: string[] } {
  const known = new Set(specs.map((s) => s.name));
  const aliases = aliasTable(specs);
  const values: Record<string, unknown> = {};
  const unsupported: string[] = [];
  for (const [key, value] of Object.entries(given)) {
    if (known.has(key)) {
      if (!(key in values)) values[key] = value;
      continue;
    }
    const target = aliases.get(key);
    if (target === undefined) {
      unsupported.push(key);
      continue;
    }
    if (target in given) warnings.push(messages.aliasAndOptionBothSet(target, key));
    values[target] = value;
  }
  return { values, unsupported };
}

function convertTypes(
  specs: readonly OptionSpec[],
  values: Record<string, unknown>,
  action: StringConversionAction,
  warnings: string[],
): string[] {
  const errors: string[] = [];
  for (const spec of specs) {
    const value = values[spec.name];
    if (value === null || value === undefined) continue;
    const c = coerce(value, spec.type, action);
    if (!c.ok) {
      errors.push(messages.typeError(spec.name, value, spec.type, c.detail));
      continue;
    }
    if (c.warning !== undefined) warnings.push(c.warning);
    let converted = c.value;
    if (spec.type === "list" && spec.elements !== null && Array.isArray(converted)) {
      const items: unknown[] = [];
      for (const item of converted) {
        const ci = coerce(item, spec.elements, action);
        if (!ci.ok) {
          errors.push(messages.elementTypeError(spec.name, item, spec.elements, ci.detail));
          break;
        }
        if (ci.warning !== undefined) warnings.push(ci.warning);
        items.push(ci.value);
      }
      converted = items;
    }
    values[spec.name] = converted;
  }
  return errors;
}

function schemaChecks(
  schema: JsonSchemaObject,
  specs: readonly OptionSpec[],
  values: Record<string, unknown>,
  precompiled: OptionsValidator | undefined,
): string[] {
  const present: Record<string, unknown> = {};
  for (const spec of specs) {
    const v = values[spec.name];
    if (v !== null && v !== undefined) present[spec.name] = v;
  }
  const validate: OptionsValidator = precompiled ?? compileSchema(schema);
  if (validate(present)) return [];
  const mapped = mapSchemaErrors(validate.errors ?? [], schema, present);
  const order = new Map(specs.map((s, i) => [s.name, i]));
  const rank = (r: "choices" | "value"): number => (r === "choices" ? 0 : 1);
  return mapped
    .map((e, i) => ({ e, i }))
    .sort(
      (a, b) =>
        rank(a.e.rank) - rank(b.e.rank) ||
        (order.get(a.e.option) ?? 0) - (order.get(b.e.option) ?? 0) ||
        a.i - b.i,
    )
    .map(({ e }) => e.msg);
}

/**
 * `validator` is the schema's precompiled validator (generated from the same schema); without
 * one, the schema is compiled with Ajv on first use.
 */
export function validateOptions(
  schema: JsonSchemaObject,
  given: Record<string, unknown>,
  settings: ValidationSettings,
  validator?: OptionsValidator,
): ValidationOutcome {
  const specs = optionSpecs(schema);
  const warnings: string[] = [];
  const errors: string[] = [];
  const { values, unsupported } = resolveAliases(specs, given, warnings);

  for (const spec of specs) {
    if ((values[spec.name] === undefined || values[spec.name] === null) && spec.hasDefault) {
      values[spec.name] = spec.default;
    }
  }
  const secrets = specs.filter((s) => s.noLog).flatMap((s) => secretStrings(values[s.name]));

  const missing = specs
    .filter((s) => s.required && (values[s.name] === undefined || values[s.name] === null))
    .map((s) => s.name);
  if (missing.length > 0) errors.push(messages.missingRequired(missing));

  const typeErrors = convertTypes(specs, values, settings.stringConversionAction, warnings);
  errors.push(...typeErrors);
  // Converted values may be secrets in another form ("1" -> 1): mask both.
  secrets.push(...specs.filter((s) => s.noLog).flatMap((s) => secretStrings(values[s.name])));
  if (typeErrors.length === 0) errors.push(...schemaChecks(schema, specs, values, validator));

  if (unsupported.length > 0 && !settings.ignoreUnknownOpts) {
    errors.push(
      messages.unsupportedParameters(
        settings.moduleName,
        unsupported,
        specs.map((s) => ({ name: s.name, aliases: s.aliases })),
      ),
    );
  }

  const params: Record<string, unknown> = {};
  for (const spec of specs) params[spec.name] = values[spec.name] ?? null;
  return { params, secrets: [...new Set(secrets)], warnings, error: errors[0] ?? null };
}
