/** TypeScript types of a module's options and result, by json-schema-to-typescript. */
import { compile } from "json-schema-to-typescript";
import type { ModuleSchemas } from "./module-schemas.js";
import { pascalCase } from "./names.js";
import { paramsInterface } from "./params-type.js";
import { prepareForTypes } from "./ts-schema-prep.js";
import type { JsonSchema } from "../src/protocol/json-schema.js";

export function typesBanner(schemaPath: string, extra: string[] = []): string {
  return [
    "/**",
    ` * Generated from ${schemaPath} by tools/generate.ts: do not edit.`,
    " * Regenerate with `npm run build && npm run generate`.",
    ...extra.map((line) => ` * ${line}`),
    " */",
  ].join("\n");
}

async function toTypeScript(
  schema: JsonSchema,
  name: string,
  banner: string,
  cwd: string,
): Promise<string> {
  return compile(prepareForTypes(schema) as Parameters<typeof compile>[0], name, {
    bannerComment: banner,
    cwd,
    unknownAny: true,
    additionalProperties: false,
    strictIndexSignatures: false,
    format: true,
    style: { printWidth: 100 },
  });
}

export interface GeneratedTypes {
  options: string;
  result: string;
}

export async function generateTypes(
  mod: ModuleSchemas,
  schemasDir: string,
): Promise<GeneratedTypes> {
  const base = pascalCase(mod.name);
  const optionsName = mod.options.title ?? `${base}Options`;
  const paramsName = `${base}Params`;
  const optionsBanner = typesBanner(mod.optionsPath, [
    "",
    `${optionsName}: the options as a task gives them (all optional).`,
    `${paramsName}: the options as run() receives them, after validation and defaults.`,
  ]);
  const options = await toTypeScript(mod.options, optionsName, optionsBanner, schemasDir);
  const result = await toTypeScript(
    mod.result,
    mod.result.title ?? `${base}Result`,
    typesBanner(mod.resultPath),
    schemasDir,
  );
  return {
    options: `${options.trimEnd()}\n\n${paramsInterface(mod.options, optionsName, paramsName)}`,
    result: `${result.trimEnd()}\n`,
  };
}
