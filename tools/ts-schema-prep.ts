/**
 * Prepare a schema for json-schema-to-typescript (pure): a schema that says nothing about its
 * type (only a description, like a finding's `live` value) would otherwise come out as an
 * object type; mark it `unknown` instead.
 */
import type { JsonSchema } from "../src/protocol/json-schema.js";

const SHAPE_KEYWORDS = [
  "type",
  "$ref",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "properties",
  "items",
  "additionalProperties",
  "tsType",
];

function prepare(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  if (!SHAPE_KEYWORDS.some((k) => k in schema)) out.tsType = "unknown";
  if (schema.properties !== undefined) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([k, v]) => [k, prepare(v)]),
    );
  }
  if (schema.definitions !== undefined) {
    out.definitions = Object.fromEntries(
      Object.entries(schema.definitions).map(([k, v]) => [k, prepare(v)]),
    );
  }
  if (schema.items !== undefined) out.items = prepare(schema.items);
  if (typeof schema.additionalProperties === "object") {
    out.additionalProperties = prepare(schema.additionalProperties);
  }
  return out;
}

/** A copy of the schema ready for json-schema-to-typescript. */
export function prepareForTypes(schema: JsonSchema): JsonSchema {
  return prepare(structuredClone(schema));
}
