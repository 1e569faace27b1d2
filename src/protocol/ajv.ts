/**
 * The one Ajv instance that checks option schemas: draft-07, strict, every error collected,
 * with the project's annotation keywords registered so strict mode accepts them.
 */
import { Ajv } from "ajv";
import type { KeywordDefinition, ValidateFunction } from "ajv";
import type { JsonSchema } from "./json-schema.js";

/** Annotation keywords of the schemas in schemas/: documentation only, no validation. */
export const ANNOTATION_KEYWORDS: readonly KeywordDefinition[] = [
  { keyword: "x-ansible", schemaType: "object" },
  { keyword: "x-ansible-no-log", schemaType: "boolean" },
  { keyword: "x-ansible-aliases", schemaType: "array" },
  { keyword: "x-kubespray-variable", schemaType: "string" },
  { keyword: "x-ansible-returned", schemaType: "string" },
  { keyword: "x-ansible-sample" },
];

export function createAjv(): Ajv {
  const ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true, logger: false });
  for (const definition of ANNOTATION_KEYWORDS) ajv.addKeyword(definition);
  return ajv;
}

let shared: Ajv | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

/** Compile a schema once (per schema object) with the shared instance. */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  const hit = compiled.get(schema);
  if (hit !== undefined) return hit;
  shared ??= createAjv();
  // $id is dropped so two copies of the same schema (or a test schema) never collide.
  const copy: JsonSchema = { ...schema };
  delete copy.$id;
  delete copy.$schema;
  const validate = shared.compile(copy);
  compiled.set(schema, validate);
  return validate;
}
