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
/** The ansible-core releases the project tests (Kubespray's 2.16-2.18 and the .venv's 2.19). */
export const REQUIRES_ANSIBLE = ">=2.16.0,<2.20.0";
/** Where the bundled backend lies in the collection, relative to its root. */
export const BACKEND_PATH = "backend/calico-encap.mjs";

export function galaxyYml(version: string): string {
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
    dependencies: {},
    build_ignore: [],
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

/**
 * The module file: its documentation for ansible-doc, and, for `calico_encap_mode: module` (the action plugin not
 * used), a wrapper that runs the calico-encap backend installed on the target (CALICO_ENCAP_BACKEND, else
 * calico-encap on PATH) with the task's args file (WANT_JSON).
 */
export function moduleFile(mod: ModuleSchemas): string {
  const doc = documentation(mod.name, mod.options) as Record<string, unknown>;
  const fqcnDoc = { ...doc, module: mod.name };
  return [
    "#!/usr/bin/python",
    "# -*- coding: utf-8 -*-",
    "# Copyright: calico-encap contributors",
    "# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)",
    `# Generated from schemas/${mod.name}.options.json and ${mod.name}.result.json by tools/collection.ts.`,
    "# WANT_JSON",
    "",
    "from __future__ import annotations",
    "",
    `DOCUMENTATION = r"""\n${yamlBlock(fqcnDoc)}"""`,
    "",
    `EXAMPLES = r"""\n${examples(mod.options).replace(/\b(calico_pool_check|calico_encap_migrate):/g, `${FQCN_PREFIX}.$1:`)}"""`,
    "",
    `RETURN = r"""\n${yamlBlock(returns(mod.result))}"""`,
    "",
    "import json",
    "import os",
    "import shutil",
    "import sys",
    "",
    "",
    "def main():",
    `    """Runs the calico-encap backend on this host: the action plugin normally runs ${mod.name} on the controller."""`,
    '    backend = os.environ.get("CALICO_ENCAP_BACKEND") or shutil.which("calico-encap")',
    "    if not backend or not os.access(backend, os.X_OK):",
    "        print(json.dumps({",
    '            "failed": True,',
    '            "changed": False,',
    `            "msg": "${mod.name} in module mode needs the calico-encap backend on this host and found none"`,
    '            " (CALICO_ENCAP_BACKEND=%s, calico-encap not on PATH): install Node.js >= 20.10 and calico-encap here, or' +
      " run the task through the action plugin (the default), which runs the backend bundled in this collection" +
      ' on the controller." % os.environ.get("CALICO_ENCAP_BACKEND", "unset"),',
    "        }))",
    "        sys.exit(1)",
    `    os.execv(backend, [backend, "module", "${mod.name}", sys.argv[1]])`,
    "",
    "",
    'if __name__ == "__main__":',
    "    main()",
    "",
  ].join("\n");
}

/** meta/execution-environment.yml and the bindep file it names: AWX and Automation Platform images get Node.js. */
export function executionEnvironment(): { meta: string; bindep: string } {
  return {
    meta: stringify({ version: 1, dependencies: { system: "meta/bindep.txt" } }),
    bindep: [
      "# The calico-encap backend runs on the controller (the execution environment): Node.js >= 20.10.",
      "nodejs [platform:rpm]",
      "nodejs [platform:dpkg]",
      "",
    ].join("\n"),
  };
}
