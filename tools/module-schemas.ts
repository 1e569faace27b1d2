/** Find the modules described in schemas/: each M with M.options.json and M.result.json. */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { JsonSchema, JsonSchemaObject } from "../src/protocol/json-schema.js";
import { SCHEMAS_DIR } from "./paths.js";

export interface ModuleSchemas {
  name: string;
  optionsPath: string;
  resultPath: string;
  options: JsonSchemaObject;
  result: JsonSchemaObject;
}

const OPTIONS_SUFFIX = ".options.json";

function asObjectSchema(value: unknown, path: string): JsonSchemaObject {
  const schema = value as JsonSchema;
  if (schema === null || typeof schema !== "object" || typeof schema.properties !== "object") {
    throw new Error(`${path}: expected an object schema with "properties"`);
  }
  return schema as JsonSchemaObject;
}

async function readJson(root: string, path: string): Promise<unknown> {
  const text = await readFile(join(root, path), "utf8");
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Modules in name order; a module with options but no result schema is an error. */
export async function loadModuleSchemas(root: string): Promise<ModuleSchemas[]> {
  const names = (await readdir(join(root, SCHEMAS_DIR)))
    .filter((f) => f.endsWith(OPTIONS_SUFFIX))
    .map((f) => f.slice(0, -OPTIONS_SUFFIX.length))
    .sort();
  const modules: ModuleSchemas[] = [];
  for (const name of names) {
    const optionsPath = `${SCHEMAS_DIR}/${name}.options.json`;
    const resultPath = `${SCHEMAS_DIR}/${name}.result.json`;
    const options = asObjectSchema(await readJson(root, optionsPath), optionsPath);
    const result = asObjectSchema(await readJson(root, resultPath), resultPath);
    modules.push({ name, optionsPath, resultPath, options, result });
  }
  return modules;
}
