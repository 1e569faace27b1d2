/**
 * Ansible's type conversion of option values (module_utils/common/validation check_type_*),
 * applied before the schema checks: "yes" is a bool, "26" an int, 5 a str "5", "a,b" a list.
 */
import type { JsonSchema } from "./json-schema.js";
import { primaryType } from "./json-schema.js";
import { pyRepr, pyStr, pyTypeName } from "./python-format.js";

/** Ansible's option types, as written in DOCUMENTATION and in conversion messages. */
export type AnsibleType = "str" | "int" | "float" | "bool" | "list" | "dict" | "raw";

/** What to do with a non-string in a str option (`_ansible_string_conversion_action`). */
export type StringConversionAction = "warn" | "error" | "ignore";

export type Coerced =
  { ok: true; value: unknown; warning?: string } | { ok: false; detail: string };

/** The Ansible type of a JSON Schema (string -> str, integer -> int, array -> list, ...). */
export function ansibleTypeOf(schema: JsonSchema): AnsibleType {
  switch (primaryType(schema)) {
    case "string":
      return "str";
    case "integer":
      return "int";
    case "number":
      return "float";
    case "boolean":
      return "bool";
    case "array":
      return "list";
    case "object":
      return "dict";
    default:
      return "raw";
  }
}

const TRUE_STRINGS = new Set(["y", "yes", "on", "1", "true", "t"]);
const FALSE_STRINGS = new Set(["n", "no", "off", "0", "false", "f"]);
const VALID_BOOLEANS =
  "'y', 'yes', 'on', '1', 'true', 't', 1, 1.0, 'n', 'no', 'off', '0', 'false', 'f', 0, 0.0";

export function coerceBool(value: unknown): Coerced {
  if (typeof value === "boolean") return { ok: true, value };
  if (typeof value === "string") {
    const s = value.trim().toLowerCase();
    if (TRUE_STRINGS.has(s)) return { ok: true, value: true };
    if (FALSE_STRINGS.has(s)) return { ok: true, value: false };
  }
  if (value === 1 || value === 0) return { ok: true, value: value === 1 };
  return {
    ok: false,
    detail: `The value ${pyRepr(value)} is not a valid boolean.  Valid booleans include: ${VALID_BOOLEANS}`,
  };
}

export function coerceInt(value: unknown): Coerced {
  if (typeof value === "number" && Number.isInteger(value)) return { ok: true, value };
  if (typeof value === "boolean") return { ok: true, value: value ? 1 : 0 };
  if (typeof value === "string" && /^\s*[-+]?\d+\s*$/.test(value)) {
    const n = Number(value.trim());
    if (Number.isSafeInteger(n)) return { ok: true, value: n };
  }
  return { ok: false, detail: `${pyRepr(value)} cannot be converted to an int` };
}

export function coerceFloat(value: unknown): Coerced {
  if (typeof value === "number") return { ok: true, value };
  if (typeof value === "boolean") return { ok: true, value: value ? 1 : 0 };
  if (typeof value === "string" && value.trim() !== "") {
    const n = Number(value.trim());
    if (!Number.isNaN(n)) return { ok: true, value: n };
  }
  return { ok: false, detail: `${pyRepr(value)} cannot be converted to a float` };
}

export function coerceStr(value: unknown, action: StringConversionAction): Coerced {
  if (typeof value === "string") return { ok: true, value };
  if (action === "error") {
    return {
      ok: false,
      detail: `'${pyRepr(value)}' is not a string and conversion is not allowed`,
    };
  }
  const converted = pyStr(value);
  if (action === "ignore") return { ok: true, value: converted };
  return {
    ok: true,
    value: converted,
    warning:
      `The value ${pyRepr(value)} (type ${pyTypeName(value)}) in a string field was converted to ` +
      `${pyRepr(converted)} (type string). If this does not look like what you expect, quote the ` +
      `entire value to ensure it does not change.`,
  };
}

export function coerceList(value: unknown): Coerced {
  if (Array.isArray(value)) return { ok: true, value };
  if (typeof value === "string") return { ok: true, value: value.split(",") };
  if (typeof value === "number" || typeof value === "boolean") {
    return { ok: true, value: [pyStr(value)] };
  }
  return { ok: false, detail: `${pyTypeName(value)} cannot be converted to a list` };
}

/** Split `a=1, b="x y"` into fields on commas and spaces outside quotes. */
function splitKeyValueFields(text: string): string[] | undefined {
  const fields: string[] = [];
  let field = "";
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    if (ch === "\\" && i + 1 < text.length) {
      field += text.charAt(++i);
    } else if (quote !== null) {
      if (ch === quote) quote = null;
      else field += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === "," || ch === " ") {
      if (field !== "") fields.push(field);
      field = "";
    } else {
      field += ch;
    }
  }
  if (quote !== null) return undefined;
  if (field !== "") fields.push(field);
  return fields;
}

export function coerceDict(value: unknown): Coerced {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    return { ok: true, value };
  }
  const fail: Coerced = {
    ok: false,
    detail: "dictionary requested, could not parse JSON or key=value",
  };
  if (typeof value !== "string")
    return { ok: false, detail: `${pyTypeName(value)} cannot be converted to a dict` };
  const text = value.trim();
  if (text.startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(text);
      return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
        ? { ok: true, value: parsed }
        : fail;
    } catch {
      return fail;
    }
  }
  const fields = splitKeyValueFields(text);
  if (fields === undefined || fields.some((f) => !f.includes("="))) return fail;
  const dict: Record<string, string> = {};
  for (const f of fields) {
    const at = f.indexOf("=");
    dict[f.slice(0, at)] = f.slice(at + 1);
  }
  return { ok: true, value: dict };
}

/** Convert a value to an Ansible type; "raw" keeps it as it is. */
export function coerce(value: unknown, type: AnsibleType, action: StringConversionAction): Coerced {
  switch (type) {
    case "str":
      return coerceStr(value, action);
    case "int":
      return coerceInt(value);
    case "float":
      return coerceFloat(value);
    case "bool":
      return coerceBool(value);
    case "list":
      return coerceList(value);
    case "dict":
      return coerceDict(value);
    case "raw":
      return { ok: true, value };
  }
}
