// Decoding what calicoctl and kubectl print with -o json: an object of an expected kind, or a clear error.

import { DatastoreError } from "./errors.js";

export type Json = Record<string, unknown>;

export function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Parses stdout and checks its kind (e.g. IPPoolList); a List's items are checked too when itemKinds is given. */
export function decodeKind(
  argv: readonly string[],
  stdout: string,
  kinds: readonly string[],
): Json {
  const expected = `a JSON ${kinds.join(" or ")}`;
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    throw DatastoreError.unparsable(argv, stdout, expected);
  }
  if (!isObject(value) || typeof value.kind !== "string" || !kinds.includes(value.kind))
    throw DatastoreError.unparsable(argv, stdout, expected);
  return value;
}

export function items(list: Json): Json[] {
  const raw = list.items;
  return Array.isArray(raw) ? raw.filter(isObject) : [];
}

export function field(obj: unknown, ...path: string[]): unknown {
  let cur: unknown = obj;
  for (const key of path) {
    if (!isObject(cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

export function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

export function bool(v: unknown): boolean | undefined {
  return typeof v === "boolean" ? v : undefined;
}
