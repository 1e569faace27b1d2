// Decoding what calicoctl and kubectl print with -o json: an object of an expected kind, or a clear error.

import { DatastoreError } from "./errors.js";

export type Json = Record<string, unknown>;

export function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Parses stdout and checks its kind (e.g. IPPoolList). */
export function decodeKind(
  argv: readonly string[],
  stdout: string,
  kinds: readonly string[],
): Json {
  return checkKind(argv, stdout, parseJson(argv, stdout, expectedKinds(kinds)), kinds);
}

/** stdout as JSON, or an error that says what was expected. */
export function parseJson(argv: readonly string[], stdout: string, expected: string): unknown {
  try {
    return JSON.parse(stdout) as unknown;
  } catch {
    throw DatastoreError.unparsable(argv, stdout, expected);
  }
}

/** A parsed value of one of the kinds, or an error that shows stdout, the command's whole answer. */
export function checkKind(
  argv: readonly string[],
  stdout: string,
  value: unknown,
  kinds: readonly string[],
): Json {
  if (!isObject(value) || typeof value.kind !== "string" || !kinds.includes(value.kind))
    throw DatastoreError.unparsable(argv, stdout, expectedKinds(kinds));
  return value;
}

function expectedKinds(kinds: readonly string[]): string {
  return `a JSON ${kinds.join(" or ")}`;
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
