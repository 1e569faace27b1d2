/**
 * Everything the generator produces, computed in memory, and how it compares with the files
 * on disk: what generate.ts writes and what --check and test/unit/generated.test.ts verify.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { undocumented } from "./ansible-doc.js";
import { generateTypes } from "./gen-types.js";
import { loadModuleSchemas } from "./module-schemas.js";
import { GENERATED_DIR, GENERATED_MARKER, LIBRARY_DIR, SCHEMAS_DIR } from "./paths.js";
import { sidecarYaml } from "./sidecar.js";
import { validatorModule } from "./standalone.js";

/** Schema properties without a description (documented in the sidecar as not described). */
export async function undocumentedProperties(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const mod of await loadModuleSchemas(root)) {
    for (const p of undocumented(mod.options)) out.push(`${mod.optionsPath}: ${p}`);
    for (const p of undocumented(mod.result)) out.push(`${mod.resultPath}: ${p}`);
  }
  return out;
}

/** Repository-relative path -> expected content, in a stable order. */
export type GeneratedFiles = Map<string, string>;

export async function computeGeneratedFiles(root: string): Promise<GeneratedFiles> {
  const files: GeneratedFiles = new Map();
  for (const mod of await loadModuleSchemas(root)) {
    const types = await generateTypes(mod, join(root, SCHEMAS_DIR));
    files.set(`${GENERATED_DIR}/${mod.name}.options.ts`, types.options);
    files.set(`${GENERATED_DIR}/${mod.name}.result.ts`, types.result);
    files.set(`${GENERATED_DIR}/${mod.name}.options.validator.ts`, validatorModule(mod));
    files.set(`${LIBRARY_DIR}/${mod.name}.yml`, sidecarYaml(mod));
  }
  return files;
}

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return null;
  }
}

/** Files on disk that carry the generated banner, under the generator's output folders. */
export async function generatedFilesOnDisk(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const [dir, ext] of [
    [GENERATED_DIR, ".ts"],
    [LIBRARY_DIR, ".yml"],
  ] as const) {
    let names: string[];
    try {
      names = await readdir(join(root, dir));
    } catch {
      continue;
    }
    for (const name of names.filter((n) => n.endsWith(ext)).sort()) {
      const text = await readOrNull(join(root, dir, name));
      if (text?.slice(0, 400).includes(GENERATED_MARKER)) found.push(`${dir}/${name}`);
    }
  }
  return found;
}

export interface StaleFile {
  path: string;
  reason: "missing" | "outdated" | "orphaned";
}

/** Generated files that differ from what the schemas give, are missing, or have no schema left. */
export async function findStale(root: string, expected: GeneratedFiles): Promise<StaleFile[]> {
  const stale: StaleFile[] = [];
  for (const [path, content] of expected) {
    const actual = await readOrNull(join(root, path));
    if (actual === null) stale.push({ path, reason: "missing" });
    else if (actual !== content) stale.push({ path, reason: "outdated" });
  }
  for (const path of await generatedFilesOnDisk(root)) {
    if (!expected.has(path)) stale.push({ path, reason: "orphaned" });
  }
  return stale;
}
