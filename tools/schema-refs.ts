/** Resolve a schema's local `$ref`s (`#/definitions/x`, `#/$defs/x`) against its root (pure). */
import type { JsonSchema } from "../src/protocol/json-schema.js";

export function resolveRef(schema: JsonSchema, root: JsonSchema): JsonSchema {
  let current = schema;
  const seen = new Set<string>();
  while (current.$ref !== undefined) {
    const ref = current.$ref;
    if (seen.has(ref)) throw new Error(`circular $ref ${ref}`);
    seen.add(ref);
    if (!ref.startsWith("#/")) throw new Error(`only local $refs are supported, got ${ref}`);
    let target: unknown = root;
    for (const part of ref.slice(2).split("/")) {
      const key = part.replace(/~1/g, "/").replace(/~0/g, "~");
      target = (target as Record<string, unknown> | undefined)?.[key];
    }
    if (target === undefined || target === null || typeof target !== "object") {
      throw new Error(`unresolved $ref ${ref}`);
    }
    // Keywords beside $ref (a description) describe this use of the definition: they win.
    const beside: JsonSchema = { ...current };
    delete beside.$ref;
    current = { ...(target as JsonSchema), ...beside };
  }
  return current;
}
