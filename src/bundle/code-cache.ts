// Where the collection's backend keeps V8's code cache of its payload (src/bundle/loader.ts), and what the loader
// reports of it. Pure: the decision, from the environment it is given.

import { modeOf } from "../modes.js";

/** The environment variable that sets the cache's folder, or turns it off with "off". */
export const CODE_CACHE_ENV = "CALICO_ENCAP_CODE_CACHE";

/** Cache files older than this are removed when a new one is written (other builds, other Node.js versions). */
export const CODE_CACHE_MAX_AGE_MS = 30 * 24 * 3600 * 1000;

export interface CodeCacheWhere {
  env: Record<string, string | undefined>;
  home: string;
  /** The bundle's build id (src/build-id.ts), e.g. calico-encap-build:0123456789abcdef. */
  build: string;
  /** process.versions.v8: a cache is V8's, valid for one V8 only. */
  v8: string;
  arch: string;
  /** The backend's first argument (check, migrate, module, bridge): each runs other code, so each has its cache. */
  mode: string | undefined;
}

/**
 * The cache file for this build and mode on this V8, or null when there is none to use: CALICO_ENCAP_CODE_CACHE=off, or
 * no folder to put it in. The folder is CALICO_ENCAP_CODE_CACHE, else $XDG_CACHE_HOME/calico-encap/code-cache,
 * else ~/.cache/calico-encap/code-cache.
 */
export function codeCacheFile(w: CodeCacheWhere): { dir: string; file: string } | null {
  const set = w.env[CODE_CACHE_ENV];
  if (set === "off") return null;
  const base = w.env.XDG_CACHE_HOME || (w.home ? `${w.home}/.cache` : "");
  const dir = set || (base ? `${base}/calico-encap/code-cache` : "");
  if (!dir) return null;
  const build = w.build.replace(/^calico-encap-build:/, "").replace(/[^A-Za-z0-9._-]/g, "_");
  const v8 = w.v8.replace(/[^A-Za-z0-9._-]/g, "_");
  const mode = modeOf(w.mode) ?? "other";
  return { dir, file: `${dir}/${build}-${mode}-v8-${v8}-${w.arch}.bin` };
}

/** What became of the cache in one run: used, made (none yet), made again (V8 refused it), or none. */
export type CodeCacheState = "hit" | "miss" | "rejected" | "off";
