/** Ajv's errors on already-converted options, turned into AnsibleModule-style messages. */
import type { ErrorObject } from "ajv";
import type { JsonSchema } from "./json-schema.js";
import { formatDescription } from "./formats.js";
import * as messages from "./messages.js";

/** Error classes in the order AnsibleModule reports them: choices before other value checks. */
export type SchemaErrorRank = "choices" | "value";

export interface SchemaError {
  /** The top-level option the error is about. */
  option: string;
  rank: SchemaErrorRank;
  msg: string;
}

function pathSegments(instancePath: string): string[] {
  if (instancePath === "") return [];
  return instancePath
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function valueAt(data: unknown, segments: readonly string[]): unknown {
  let cur = data;
  for (const s of segments) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[s];
  }
  return cur;
}

function schemaAt(root: JsonSchema, segments: readonly string[]): JsonSchema | undefined {
  let cur: JsonSchema | undefined = root;
  for (const s of segments) {
    if (cur === undefined) return undefined;
    if (/^\d+$/.test(s) && cur.items !== undefined) cur = cur.items;
    else cur = cur.properties?.[s];
  }
  return cur;
}

/** The option path as Ansible names it: `parent.child`, list indexes dropped. */
function displayName(segments: readonly string[]): string {
  return segments.filter((s) => !/^\d+$/.test(s)).join(".");
}

/**
 * Map Ajv errors to messages. Errors at the root (required, additionalProperties) are left to
 * the caller, which checks presence and unknown names itself.
 */
export function mapSchemaErrors(
  errors: readonly ErrorObject[],
  root: JsonSchema,
  data: Record<string, unknown>,
): SchemaError[] {
  const out: SchemaError[] = [];
  const listChoiceSeen = new Set<string>();
  for (const e of errors) {
    const segments = pathSegments(e.instancePath);
    const option = segments[0];
    if (option === undefined) continue;
    const name = displayName(segments);
    const value = valueAt(data, segments);
    const schema = schemaAt(root, segments) ?? {};
    const parentIsList = segments.length >= 2 && /^\d+$/.test(segments[segments.length - 1] ?? "");
    switch (e.keyword) {
      case "enum": {
        const choices = (e.params as { allowedValues: unknown[] }).allowedValues;
        if (parentIsList) {
          if (listChoiceSeen.has(name)) break;
          listChoiceSeen.add(name);
          const list = valueAt(data, segments.slice(0, -1));
          const bad = Array.isArray(list) ? list.filter((v) => !choices.includes(v)) : [value];
          out.push({ option, rank: "choices", msg: messages.notOneOrMoreOf(name, choices, bad) });
        } else {
          out.push({ option, rank: "choices", msg: messages.notOneOf(name, choices, value) });
        }
        break;
      }
      case "pattern":
        out.push({
          option,
          rank: "value",
          msg: messages.patternMismatch(name, (e.params as { pattern: string }).pattern, value),
        });
        break;
      case "format":
        out.push({
          option,
          rank: "value",
          msg: messages.formatMismatch(
            name,
            formatDescription((e.params as { format: string }).format),
            value,
          ),
        });
        break;
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum": {
        const limit = (e.params as { limit: number }).limit;
        const bounds: messages.Bounds = {
          minimum: schema.minimum,
          maximum: schema.maximum,
          exclusiveMinimum: schema.exclusiveMinimum,
          exclusiveMaximum: schema.exclusiveMaximum,
        };
        if (Object.values(bounds).every((b) => b === undefined)) bounds[e.keyword] = limit;
        out.push({ option, rank: "value", msg: messages.outOfRange(name, bounds, value) });
        break;
      }
      default:
        out.push({
          option,
          rank: "value",
          msg: messages.invalidValue(name, e.message ?? e.keyword, value),
        });
    }
  }
  return out;
}
