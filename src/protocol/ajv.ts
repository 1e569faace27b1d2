/**
 * The one Ajv configuration that checks option schemas: draft-07, strict, every error collected,
 * with the project's annotation keywords registered so strict mode accepts them, and its formats (formats.ts).
 *
 * Ajv itself is loaded on first use only: modules run with the validator the generator
 * precompiled from the same configuration (tools/standalone.ts), so the module path never loads
 * Ajv's compiler. Ajv is CommonJS, so a synchronous require loads it and validation stays sync.
 */
import { createRequire } from "node:module";
import type * as AjvModule from "ajv";
import type { Ajv, KeywordDefinition, Options, ValidateFunction } from "ajv";
import { OPTION_FORMATS } from "./formats.js";
import type { JsonSchema } from "./json-schema.js";

/** Annotation keywords of the schemas in schemas/: documentation only, no validation. */
export const ANNOTATION_KEYWORDS: readonly KeywordDefinition[] = [
  { keyword: "x-ansible", schemaType: "object" },
  { keyword: "x-ansible-no-log", schemaType: "boolean" },
  { keyword: "x-ansible-aliases", schemaType: "array" },
  { keyword: "x-kubespray-variable", schemaType: "string" },
  { keyword: "x-kubespray-fallback", schemaType: "string" },
  { keyword: "x-ansible-returned", schemaType: "string" },
  { keyword: "x-ansible-sample" },
];

/** The options every Ajv instance of the project is created with (run time and standalone). */
export const AJV_OPTIONS: Readonly<Options> = {
  strict: true,
  allErrors: true,
  allowUnionTypes: true,
  logger: false,
};

let ajvModule: typeof AjvModule | undefined;

function loadAjv(): typeof AjvModule {
  ajvModule ??= createRequire(import.meta.url)("ajv") as typeof AjvModule;
  return ajvModule;
}

/** A new instance with the project's options (plus `extra`, e.g. standalone code generation) and formats. */
export function createAjv(extra: Options = {}): Ajv {
  const { Ajv } = loadAjv();
  const ajv = new Ajv({ ...AJV_OPTIONS, ...extra });
  for (const definition of ANNOTATION_KEYWORDS) ajv.addKeyword(definition);
  for (const [name, format] of Object.entries(OPTION_FORMATS)) ajv.addFormat(name, format);
  return ajv;
}

/**
 * The schema as Ajv compiles it: $id and $schema dropped, so two copies of the same schema
 * (or a test schema) never collide and both paths compile exactly the same thing.
 */
export function schemaForAjv(schema: JsonSchema): JsonSchema {
  const copy: JsonSchema = { ...schema };
  delete copy.$id;
  delete copy.$schema;
  return copy;
}

let shared: Ajv | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

/** Compile a schema once (per schema object) with the shared instance. */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  const hit = compiled.get(schema);
  if (hit !== undefined) return hit;
  shared ??= createAjv();
  const validate = shared.compile(schemaForAjv(schema));
  compiled.set(schema, validate);
  return validate;
}
