/**
 * Generate from schemas/: TypeScript types and precompiled options validators (src/generated/)
 * and ansible-doc sidecars (ansible/library/M.yml).
 * Annotations the schemas carry besides JSON Schema (registered in src/protocol/ajv.ts, typed in
 * src/protocol/json-schema.ts): x-ansible (the module's DOCUMENTATION), x-ansible-aliases, x-ansible-no-log,
 * x-ansible-returned, x-ansible-sample, x-kubespray-variable (the Kubespray variable an option takes) and
 * x-kubespray-fallback (where Kubespray takes the value from when that variable is undefined: a template,
 * "{kube_pods_subnet}" or "{bin_dir}/calicoctl.sh"; src/calico/shared/kubespray-fallback.ts). The human front's --vars
 * and the calico_encap role's vars/main.yml follow both (test/unit/ansible/role.test.ts checks the role).
 * Run from the built tree: `node dist/tools/generate.js [--check]`.
 * --check writes nothing and exits 1 listing the stale files.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { computeGeneratedFiles, findStale, undocumentedProperties } from "./generated-files.js";
import { repoRoot } from "./paths.js";

async function main(argv: readonly string[]): Promise<number> {
  const check = argv.includes("--check");
  const unknown = argv.filter((a) => a !== "--check");
  if (unknown.length > 0) {
    process.stderr.write(`usage: node dist/tools/generate.js [--check]\n`);
    return 2;
  }
  const expected = await computeGeneratedFiles(repoRoot);
  for (const path of await undocumentedProperties(repoRoot)) {
    process.stderr.write(`warning: no description for ${path}\n`);
  }
  const stale = await findStale(repoRoot, expected);
  if (check) {
    if (stale.length === 0) {
      process.stdout.write(`generated files are up to date (${expected.size} files)\n`);
      return 0;
    }
    process.stdout.write("stale generated files (run `npm run build && npm run generate`):\n");
    for (const s of stale) process.stdout.write(`  ${s.path} (${s.reason})\n`);
    return 1;
  }
  for (const s of stale) {
    const target = join(repoRoot, s.path);
    if (s.reason === "orphaned") {
      await rm(target);
      process.stdout.write(`removed ${s.path}\n`);
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, expected.get(s.path) ?? "", "utf8");
    process.stdout.write(`wrote ${s.path}\n`);
  }
  if (stale.length === 0)
    process.stdout.write(`nothing to do (${expected.size} files up to date)\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`generate: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
