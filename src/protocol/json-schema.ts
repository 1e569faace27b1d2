/**
 * The subset of draft-07 JSON Schema that module options and return values are written in,
 * plus the Ansible annotations this project adds (x-ansible*, x-kubespray-variable, x-kubespray-fallback).
 */

export type JsonSchemaTypeName =
  "string" | "integer" | "number" | "boolean" | "array" | "object" | "null";

/** The top-level `x-ansible` documentation block of an options schema. */
export interface AnsibleDocBlock {
  module?: string;
  short_description?: string;
  description?: string | string[];
  author?: string | string[];
  attributes?: Record<string, unknown>;
  notes?: string[];
  requirements?: string[];
  /** EXAMPLES, a YAML string. */
  examples?: string;
  [key: string]: unknown;
}

export interface JsonSchema {
  $schema?: string;
  $id?: string;
  $ref?: string;
  title?: string;
  description?: string;
  /** A JsonSchemaTypeName, or several (typed loosely so imported JSON files fit). */
  type?: string | string[];
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  /** One of src/protocol/formats.ts's OPTION_FORMATS. */
  format?: string;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  required?: string[];
  definitions?: Record<string, JsonSchema>;
  examples?: unknown[];
  /** The option's value is secret: masked in invocation and in every result string. */
  "x-ansible-no-log"?: boolean;
  /** Other names the option may be given under. */
  "x-ansible-aliases"?: string[];
  /** The Kubespray variable the option takes its value from. */
  "x-kubespray-variable"?: string;
  /**
   * Where Kubespray takes the value from when that variable is undefined: a template over Kubespray
   * variables, "{kube_pods_subnet}" (that variable's value) or "{bin_dir}/calicoctl.sh" (text). When a
   * variable it names is undefined too, the default applies. See src/calico/shared/kubespray-fallback.ts.
   */
  "x-kubespray-fallback"?: string;
  /** RETURN `returned:` text of a return value. */
  "x-ansible-returned"?: string;
  /** RETURN `sample:` of a return value. */
  "x-ansible-sample"?: unknown;
  [key: string]: unknown;
}

/** An options schema: an object schema with named properties. */
export interface JsonSchemaObject extends JsonSchema {
  properties: Record<string, JsonSchema>;
  "x-ansible"?: AnsibleDocBlock;
}

/** The first non-null type of a schema (`["string", "null"]` -> "string"), or undefined. */
export function primaryType(schema: JsonSchema): string | undefined {
  const t = schema.type;
  if (t === undefined) return undefined;
  if (typeof t === "string") return t;
  return t.find((x) => x !== "null") ?? t[0];
}
