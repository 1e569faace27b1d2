/** Where the generator reads and writes, relative to the repository root. */
import { fileURLToPath } from "node:url";

/** The repository root: this file is compiled to dist/tools/paths.js. */
export const repoRoot: string = fileURLToPath(new URL("../../", import.meta.url));

export const SCHEMAS_DIR = "schemas";
export const GENERATED_DIR = "src/generated";
export const LIBRARY_DIR = "ansible/library";

/** Every generated file starts with a banner holding this text. */
export const GENERATED_MARKER = "Generated from schemas/";
