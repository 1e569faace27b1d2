/**
 * The sidecar documentation model (pure): options schema -> DOCUMENTATION, result schema ->
 * RETURN, in Ansible's doc vocabulary (str/int/bool/list/dict, choices, contains, returned).
 */
import { ansibleTypeOf } from "../src/protocol/coerce.js";
import { formatDescription } from "../src/protocol/formats.js";
import type { AnsibleDocBlock, JsonSchema, JsonSchemaObject } from "../src/protocol/json-schema.js";
import { resolveRef } from "./schema-refs.js";

type Doc = Record<string, unknown>;

/**
 * ansible-doc refuses a module whose options or return values lack a description, so one
 * missing in the schema is filled with this text and reported (see undocumented()).
 */
export const MISSING_DESCRIPTION = "Not described in the schema.";

function describe(lines: string[]): string[] {
  return lines.length > 0 ? lines : [MISSING_DESCRIPTION];
}

function asList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function pyText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Facts of the schema that Ansible's doc format has no field for, as sentences. */
function constraintSentences(schema: JsonSchema): string[] {
  const out: string[] = [];
  const { minimum, maximum } = schema;
  if (minimum !== undefined && maximum !== undefined)
    out.push(`Between ${minimum} and ${maximum}.`);
  else if (minimum !== undefined) out.push(`At least ${minimum}.`);
  else if (maximum !== undefined) out.push(`At most ${maximum}.`);
  if (schema.exclusiveMinimum !== undefined) out.push(`Greater than ${schema.exclusiveMinimum}.`);
  if (schema.exclusiveMaximum !== undefined) out.push(`Less than ${schema.exclusiveMaximum}.`);
  if (schema.format !== undefined) out.push(`Must be ${formatDescription(schema.format)}.`);
  if (schema.pattern !== undefined) {
    const code = schema.pattern.includes(")") ? schema.pattern : `C(${schema.pattern})`;
    out.push(`Must match the regular expression ${code}.`);
  }
  return out;
}

function optionDoc(schema: JsonSchema, required: boolean, root: JsonSchema): Doc {
  const s = resolveRef(schema, root);
  const type = ansibleTypeOf(s);
  const doc: Doc = { description: describe([...asList(s.description), ...constraintSentences(s)]) };
  if (type !== "raw") doc.type = type;
  if (required) doc.required = true;
  if (s.default !== undefined && s.default !== null) doc.default = s.default;
  const items = s.items !== undefined ? resolveRef(s.items, root) : undefined;
  if (type === "list" && items !== undefined) {
    const elements = ansibleTypeOf(items);
    if (elements !== "raw") doc.elements = elements;
    if (items.enum !== undefined) doc.choices = items.enum;
  }
  if (s.enum !== undefined) doc.choices = s.enum;
  const aliases = s["x-ansible-aliases"];
  if (aliases !== undefined && aliases.length > 0) doc.aliases = aliases;
  if (s["x-ansible-no-log"] === true) doc.no_log = true;
  const nested = type === "list" ? items : s;
  if (nested?.properties !== undefined && (type === "dict" || type === "list")) {
    doc.suboptions = optionsDoc(nested, root);
  }
  return doc;
}

function optionsDoc(schema: JsonSchema, root: JsonSchema): Doc {
  const required = new Set(schema.required ?? []);
  const out: Doc = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    out[name] = optionDoc(prop, required.has(name), root);
  }
  return out;
}

const HANDLED_DOC_KEYS = new Set([
  "module",
  "short_description",
  "description",
  "author",
  "examples",
]);

/** DOCUMENTATION from an options schema and its `x-ansible` block. */
export function documentation(moduleName: string, schema: JsonSchemaObject): Doc {
  const block: AnsibleDocBlock = schema["x-ansible"] ?? {};
  if (block.module !== undefined && block.module !== moduleName) {
    throw new Error(`x-ansible.module is ${block.module}, expected ${moduleName}`);
  }
  const doc: Doc = {
    module: moduleName,
    short_description: block.short_description ?? schema.title ?? moduleName,
    description: asList(block.description ?? schema.description),
  };
  if (block.version_added !== undefined) doc.version_added = block.version_added;
  // validate-modules wants a GitHub handle or (!UNKNOWN): the project has no handle of its own.
  doc.author = asList(block.author ?? "calico-encap developers (!UNKNOWN)");
  doc.options = optionsDoc(schema, schema);
  for (const [key, value] of Object.entries(block)) {
    if (!HANDLED_DOC_KEYS.has(key) && !(key in doc)) doc[key] = value;
  }
  return doc;
}

function returnDoc(schema: JsonSchema, required: boolean, root: JsonSchema): Doc {
  const s = resolveRef(schema, root);
  const type = ansibleTypeOf(s);
  const description = [...asList(s.description)];
  if (s.enum !== undefined) description.push(`One of: ${s.enum.map(pyText).join(", ")}.`);
  const doc: Doc = { description: describe(description) };
  doc.returned = s["x-ansible-returned"] ?? (required ? "always" : "when present");
  doc.type = type;
  const items = s.items !== undefined ? resolveRef(s.items, root) : undefined;
  if (type === "list" && items !== undefined && ansibleTypeOf(items) !== "raw") {
    doc.elements = ansibleTypeOf(items);
  }
  if (s["x-ansible-sample"] !== undefined) doc.sample = s["x-ansible-sample"];
  const nested = type === "list" ? items : s;
  if (nested?.properties !== undefined && Object.keys(nested.properties).length > 0) {
    doc.contains = returnsDoc(nested, root);
  }
  return doc;
}

function returnsDoc(schema: JsonSchema, root: JsonSchema): Doc {
  const required = new Set(schema.required ?? []);
  const out: Doc = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    out[name] = returnDoc(prop, required.has(name), root);
  }
  return out;
}

/** RETURN from a result schema. */
export function returns(schema: JsonSchemaObject): Doc {
  return returnsDoc(schema, schema);
}

/** EXAMPLES: the `x-ansible.examples` string ("" when absent). */
export function examples(schema: JsonSchemaObject): string {
  return schema["x-ansible"]?.examples ?? "";
}

/** Paths (`a.b`, list items as `a[].b`) of properties without a description, in schema order. */
export function undocumented(schema: JsonSchemaObject): string[] {
  const out: string[] = [];
  const walk = (node: JsonSchema, prefix: string): void => {
    for (const [name, prop] of Object.entries(node.properties ?? {})) {
      const s = resolveRef(prop, schema);
      const path = prefix + name;
      if (s.description === undefined || s.description === "") out.push(path);
      if (s.properties !== undefined) walk(s, `${path}.`);
      const items = s.items !== undefined ? resolveRef(s.items, schema) : undefined;
      if (items?.properties !== undefined) walk(items, `${path}[].`);
    }
  };
  walk(schema, "");
  return out;
}
