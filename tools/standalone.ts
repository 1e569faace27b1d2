/**
 * A module's options validator as Ajv standalone code (ESM), compiled with the project's Ajv
 * configuration (src/protocol/ajv.ts) from the same schema the module validates against, so the
 * module path runs it without loading Ajv's compiler.
 */
import { createRequire } from "node:module";
import type * as AjvModule from "ajv";
import type { Ajv, Options } from "ajv";
import { createAjv, schemaForAjv } from "../src/protocol/ajv.js";
import type { JsonSchema } from "../src/protocol/json-schema.js";
import type { ModuleSchemas } from "./module-schemas.js";
import { GENERATED_MARKER } from "./paths.js";

type StandaloneCode = (ajv: Ajv, refs: Record<string, string>) => string;

const EXPORT_NAME = "validate";
const SCHEMA_KEY = "options";
/** The name the standalone code gives src/protocol/formats.ts's OPTION_FORMATS, imported by the generated module. */
const FORMATS_NAME = "optionFormats";
/** That import, from src/generated/. */
const FORMATS_IMPORT = `import { OPTION_FORMATS as ${FORMATS_NAME} } from "../protocol/formats.js";`;

/** Ajv's standalone code generator (CommonJS, loaded like Ajv itself). */
function standaloneCode(): StandaloneCode {
  const loaded = createRequire(import.meta.url)("ajv/dist/standalone/index.js") as {
    default: StandaloneCode;
  };
  return loaded.default;
}

/** The formats' table as Ajv code: a name, which the standalone code reads as it is. */
function formatsCode(): NonNullable<Options["code"]>["formats"] {
  const { Name } = createRequire(import.meta.url)("ajv") as typeof AjvModule;
  return new Name(FORMATS_NAME);
}

/**
 * Ajv standalone code validating `schema`, exporting it as `validate`. A format it checks is read from
 * `optionFormats`, which the code that imports it must define (validatorModule imports it).
 */
export function standaloneValidator(schema: JsonSchema): string {
  const ajv = createAjv({ code: { source: true, esm: true, lines: true, formats: formatsCode() } });
  ajv.addSchema(schemaForAjv(schema), SCHEMA_KEY);
  return standaloneCode()(ajv, { [EXPORT_NAME]: SCHEMA_KEY });
}

/** src/generated/M.options.validator.ts: the banner, then Ajv's code, unchecked by tsc. */
export function validatorModule(mod: ModuleSchemas): string {
  const code = standaloneValidator(mod.options);
  return [
    "// @ts-nocheck",
    "/**",
    ` * ${GENERATED_MARKER}${mod.name}.options.json by tools/generate.ts: do not edit.`,
    " * Regenerate with `npm run build && npm run generate`.",
    " *",
    ` * ${EXPORT_NAME}: the options schema's checks as Ajv standalone code, compiled with the`,
    " * configuration of src/protocol/ajv.ts, so modules validate without loading Ajv's compiler.",
    " */",
    ...(code.includes(`${FORMATS_NAME}[`) || code.includes(`${FORMATS_NAME}.`)
      ? [FORMATS_IMPORT]
      : []),
    code.trim(),
    "",
  ].join("\n");
}
