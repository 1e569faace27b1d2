/**
 * The `<Module>Params` interface (pure): the options as a module's run() receives them after
 * src/protocol's validation. Every option is present; one with a default (or required) is
 * never null, any other is null when the task did not give it.
 */
import type { JsonSchemaObject } from "../src/protocol/json-schema.js";

export function paramsInterface(
  schema: JsonSchemaObject,
  optionsName: string,
  paramsName: string,
): string {
  const required = new Set(schema.required ?? []);
  const lines = Object.entries(schema.properties).map(([name, prop]) => {
    const key = /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
    const access = `${optionsName}[${JSON.stringify(name)}]`;
    const never = (prop.default !== undefined && prop.default !== null) || required.has(name);
    return `  ${key}: ${never ? `NonNullable<${access}>` : `${access} | null`};`;
  });
  return [
    "/**",
    ` * ${optionsName} after validation (src/protocol/validate.ts): every option present, defaults`,
    " * filled in; options without a default are null when not given.",
    " */",
    `export interface ${paramsName} {`,
    ...lines,
    "}",
    "",
  ].join("\n");
}
