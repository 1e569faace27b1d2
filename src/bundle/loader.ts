// The collection's backend file, backend/calico-encap.mjs (tools/collection.ts): it runs the backend, a CommonJS
// payload esbuild makes of dist/src/cli.js, compiled from V8's code cache of an earlier run when there is one.
// Why: Node.js 20 keeps no compile cache for ES modules (module.enableCompileCache is Node.js >= 22.1), and
// compiling the 0.9 MB backend at every start took about 80 ms (test/bench/FIGURES.md, the SSH bench). The
// cache is one file per build, mode and V8 (src/bundle/code-cache.ts), written at the exit of a run that had none:
// V8 puts in it what that run compiled, so a bridge's cache holds the bridge's code, a check's the check's. V8
// checks it against the source, its own version and its flags, and refuses one that does not match; the loader
// then compiles as without it and writes it again. A cache that cannot be read or written changes nothing else.
// The payload is the code dist/src/cli.js runs, bundled: only its compilation differs.

import {
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import { BUILD_ID } from "../build-id.js";
import type { CodeCacheState } from "./code-cache.js";
import { CODE_CACHE_MAX_AGE_MS, codeCacheFile } from "./code-cache.js";

/** The payload's source: a function expression of (require, url) (tools/collection.ts defines it). */
declare const CALICO_ENCAP_PAYLOAD: string;

type Payload = (require: NodeJS.Require, url: string) => void;

function home(): string {
  try {
    return homedir();
  } catch {
    return "";
  }
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Writes the cache whole or not at all (a rename), and removes cache files no run has written for a month. */
function writeCache(where: { dir: string; file: string }, script: Script): void {
  const tmp = `${where.file}.${process.pid}.tmp`;
  try {
    mkdirSync(where.dir, { recursive: true, mode: 0o700 });
    writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
    renameSync(tmp, where.file);
    const now = Date.now();
    for (const name of readdirSync(where.dir)) {
      const path = `${where.dir}/${name}`;
      if (path !== where.file && name.endsWith(".bin"))
        if (now - statSync(path).mtimeMs > CODE_CACHE_MAX_AGE_MS) unlinkSync(path);
    }
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      // nothing was written
    }
  }
}

const url = import.meta.url;
const where = codeCacheFile({
  env: process.env,
  home: home(),
  build: BUILD_ID,
  v8: process.versions.v8,
  arch: process.arch,
  mode: process.argv[2],
});
const cached = where ? readCache(where.file) : undefined;
const script = new Script(CALICO_ENCAP_PAYLOAD, {
  filename: fileURLToPath(url),
  ...(cached ? { cachedData: cached } : {}),
});
const state: CodeCacheState =
  where === null
    ? "off"
    : cached === undefined
      ? "miss"
      : script.cachedDataRejected
        ? "rejected"
        : "hit";
if (where !== null && state !== "hit") process.once("exit", () => writeCache(where, script));
if (process.env.CALICO_ENCAP_TIMINGS !== undefined)
  process.once("exit", () => process.stderr.write(`calico-encap code cache: ${state}\n`));
(script.runInThisContext() as Payload)(createRequire(url), url);
