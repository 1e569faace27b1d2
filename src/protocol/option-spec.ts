/** An options schema read as Ansible's argument_spec: one entry per option, in schema order. */
import type { AnsibleType } from "./coerce.js";
import { ansibleTypeOf } from "./coerce.js";
import type { JsonSchema, JsonSchemaObject } from "./json-schema.js";

export interface OptionSpec {
  name: string;
  schema: JsonSchema;
  type: AnsibleType;
  /** The Ansible type of list elements, when the schema says (items.type). */
  elements: AnsibleType | null;
  aliases: string[];
  noLog: boolean;
  required: boolean;
  hasDefault: boolean;
  default: unknown;
}

export function optionSpecs(schema: JsonSchemaObject): OptionSpec[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, prop]) => ({
    name,
    schema: prop,
    type: ansibleTypeOf(prop),
    elements:
      prop.items !== undefined && prop.items.type !== undefined ? ansibleTypeOf(prop.items) : null,
    aliases: prop["x-ansible-aliases"] ?? [],
    noLog: prop["x-ansible-no-log"] === true,
    required: required.has(name),
    hasDefault: prop.default !== undefined && prop.default !== null,
    default: prop.default,
  }));
}

/** alias -> option name, for every alias of every option. */
export function aliasTable(specs: readonly OptionSpec[]): Map<string, string> {
  const table = new Map<string, string>();
  for (const spec of specs) for (const alias of spec.aliases) table.set(alias, spec.name);
  return table;
}
