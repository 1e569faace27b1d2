/** AnsibleModule's validation messages, word for word where Ansible has one. */
import { pyClass, pyStr } from "./python-format.js";

export function unsupportedParameters(
  moduleName: string,
  unsupported: readonly string[],
  supported: readonly { name: string; aliases: readonly string[] }[],
): string {
  const given = [...unsupported].sort().join(", ");
  const names = supported
    .map(({ name, aliases }) =>
      aliases.length > 0 ? `${name} (${[...aliases].sort().join(", ")})` : name,
    )
    .sort()
    .join(", ");
  return `Unsupported parameters for (${moduleName}) module: ${given}. Supported parameters include: ${names}.`;
}

export function missingRequired(names: readonly string[]): string {
  return `missing required arguments: ${[...names].sort().join(", ")}`;
}

export function typeError(name: string, value: unknown, type: string, detail: string): string {
  return `argument '${name}' is of type ${pyClass(value)} and we were unable to convert to ${type}: ${detail}`;
}

export function elementTypeError(
  name: string,
  value: unknown,
  type: string,
  detail: string,
): string {
  return `Elements value for option '${name}' is of type ${pyClass(value)} and we were unable to convert to ${type}: ${detail}`;
}

export function notOneOf(name: string, choices: readonly unknown[], value: unknown): string {
  return `value of ${name} must be one of: ${choices.map(pyStr).join(", ")}, got: ${pyStr(value)}`;
}

export function notOneOrMoreOf(
  name: string,
  choices: readonly unknown[],
  bad: readonly unknown[],
): string {
  return `value of ${name} must be one or more of: ${choices.map(pyStr).join(", ")}. Got no match for: ${bad.map(pyStr).join(", ")}`;
}

export function patternMismatch(name: string, pattern: string, value: unknown): string {
  return `value of ${name} must match ${pattern}, got: ${pyStr(value)}`;
}

/** A value that is not of its option's format; `description` says what it must be (src/protocol/formats.ts). */
export function formatMismatch(name: string, description: string, value: unknown): string {
  return `value of ${name} must be ${description}, got: ${pyStr(value)}`;
}

export interface Bounds {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

export function outOfRange(name: string, b: Bounds, value: unknown): string {
  const got = `, got: ${pyStr(value)}`;
  if (b.minimum !== undefined && b.maximum !== undefined) {
    return `value of ${name} must be between ${b.minimum} and ${b.maximum}${got}`;
  }
  const parts: string[] = [];
  if (b.minimum !== undefined) parts.push(`at least ${b.minimum}`);
  if (b.exclusiveMinimum !== undefined) parts.push(`greater than ${b.exclusiveMinimum}`);
  if (b.maximum !== undefined) parts.push(`at most ${b.maximum}`);
  if (b.exclusiveMaximum !== undefined) parts.push(`less than ${b.exclusiveMaximum}`);
  return `value of ${name} must be ${parts.join(" and ")}${got}`;
}

export function invalidValue(name: string, reason: string, value: unknown): string {
  return `value of ${name} is invalid (${reason}), got: ${pyStr(value)}`;
}

export function checkModeUnsupported(moduleName: string): string {
  return `remote module (${moduleName}) does not support check mode`;
}

export function aliasAndOptionBothSet(option: string, alias: string): string {
  return `Both option ${option} and its alias ${alias} are set.`;
}
