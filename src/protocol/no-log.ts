/**
 * no_log: the secrets of a run (values of options marked x-ansible-no-log) and their removal
 * from everything returned, after Ansible's remove_values: a value equal to a secret becomes
 * VALUE_SPECIFIED_IN_NO_LOG_PARAMETER, a secret inside a longer string becomes ********.
 */

export const NO_LOG_PLACEHOLDER = "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER";
export const NO_LOG_MASK = "********";

/** The strings a secret value contributes: its scalar leaves, as text (bools and null excluded). */
export function secretStrings(value: unknown): string[] {
  if (value === null || value === undefined || typeof value === "boolean") return [];
  if (typeof value === "string") return value === "" ? [] : [value];
  if (typeof value === "number") return [String(value)];
  if (Array.isArray(value)) return value.flatMap(secretStrings);
  if (typeof value === "object") return Object.values(value).flatMap(secretStrings);
  return [];
}

function maskString(s: string, secrets: readonly string[]): string {
  if (secrets.includes(s)) return NO_LOG_PLACEHOLDER;
  let out = s;
  // Longest first, so a secret that contains another is masked whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (out.includes(secret)) out = out.split(secret).join(NO_LOG_MASK);
  }
  return out;
}

/**
 * A copy of `value` with every secret removed from its strings and numbers (keys are kept).
 * Bools and null are kept, as Ansible keeps them.
 */
export function removeValues(value: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return value;
  if (typeof value === "string") return maskString(value, secrets);
  if (typeof value === "number") {
    const text = String(value);
    return secrets.some((s) => text.includes(s)) ? NO_LOG_PLACEHOLDER : value;
  }
  if (Array.isArray(value)) return value.map((v) => removeValues(v, secrets));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] = removeValues(v, secrets);
    }
    return out;
  }
  return value;
}

/** Mask a line of log text the same way. */
export function maskText(text: string, secrets: readonly string[]): string {
  return secrets.length === 0 ? text : (removeValues(text, secrets) as string);
}
