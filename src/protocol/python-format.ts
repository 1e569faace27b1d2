/**
 * How Python would print a JSON value: str(), repr() and type(). Ansible's messages and its
 * str conversion are written in these terms (e.g. true -> "True", ["a"] -> "['a']").
 */

/** Python repr() of a str: single quotes unless the text holds ' and no ". */
export function pyReprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = "";
  for (const ch of s) {
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else out += ch;
  }
  return quote + out + quote;
}

function pyNumber(n: number): string {
  if (Number.isNaN(n)) return "nan";
  if (!Number.isFinite(n)) return n > 0 ? "inf" : "-inf";
  return String(n);
}

/** Python repr() of a JSON value. */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return pyNumber(value);
  if (typeof value === "string") return pyReprString(value);
  if (Array.isArray(value)) return "[" + value.map(pyRepr).join(", ") + "]";
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    return "{" + entries.map(([k, v]) => `${pyReprString(k)}: ${pyRepr(v)}`).join(", ") + "}";
  }
  return pyReprString(typeof value === "bigint" ? value.toString() : typeof value);
}

/** Python str() of a JSON value: strings as they are, everything else as repr(). */
export function pyStr(value: unknown): string {
  return typeof value === "string" ? value : pyRepr(value);
}

/** Python's type name of a JSON value: str, int, float, bool, list, dict, NoneType. */
export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (typeof value === "string") return "str";
  if (Array.isArray(value)) return "list";
  return "dict";
}

/** `<class 'str'>` as Python prints type(value). */
export function pyClass(value: unknown): string {
  return `<class '${pyTypeName(value)}'>`;
}
