// The calico_encap role against the schemas: the one mapping in vars/main.yml names each option's Kubespray
// variable (x-kubespray-variable), then its fallback (x-kubespray-fallback), with Kubespray's default (the schema's
// default); the role's path defaults are the schemas' fallback templates (x-kubespray-fallback); the task files pass every
// option of their module from it, meta/argument_specs.yml declares every input with the same type, choices and
// default, and docs/reference.md's table is the one tools/role-mapping.ts makes.

import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { bareFallback } from "../../../src/calico/shared/kubespray-fallback.js";
import type { JsonSchemaObject } from "../../../src/protocol/json-schema.js";
import { loadModuleSchemas } from "../../../tools/module-schemas.js";
import { repoRoot } from "../../../tools/paths.js";
import type { MappingRow } from "../../../tools/role-mapping.js";
import {
  loadRoleMapping,
  OPTION_VAR_PREFIX,
  mappingTable,
  readRoleYaml,
  roleTemplate,
} from "../../../tools/role-mapping.js";

interface Spec {
  type?: string;
  choices?: unknown[];
  default?: unknown;
  elements?: string;
  description?: string[];
}
type EntryPoint = { options: Record<string, Spec> };

const ENTRY_POINTS: Record<string, { module: string; tasks: string }> = {
  main: { module: "calico_pool_check", tasks: "preflight.yml" },
  preflight: { module: "calico_pool_check", tasks: "preflight.yml" },
  migrate: { module: "calico_encap_migrate", tasks: "migrate.yml" },
};

const ANSIBLE_TYPE: Record<string, string> = {
  string: "str",
  integer: "int",
  boolean: "bool",
  array: "list",
};

interface Property {
  type: string;
  enum?: unknown[];
  default?: unknown;
  "x-kubespray-variable"?: string;
  "x-kubespray-fallback"?: string;
}

describe("the calico_encap role against the schemas", () => {
  let rows: MappingRow[];
  let schemas: Record<string, JsonSchemaObject>;
  let specs: Record<string, EntryPoint>;
  const props = (module: string): Record<string, Property> =>
    schemas[module]?.properties as Record<string, Property>;
  before(async () => {
    rows = await loadRoleMapping(repoRoot);
    schemas = Object.fromEntries(
      (await loadModuleSchemas(repoRoot)).map((m) => [m.name, m.options]),
    );
    specs = (readRoleYaml(repoRoot, "meta/argument_specs.yml") as {
      argument_specs: Record<string, EntryPoint>;
    }).argument_specs;
  });

  /** Each option's property, the same in every schema that has it. */
  const property = (option: string): Property => {
    const found = Object.keys(schemas)
      .map((m) => props(m)[option])
      .filter((p): p is Property => p !== undefined);
    for (const p of found.slice(1))
      expect(
        [p["x-kubespray-variable"], p["x-kubespray-fallback"], p.default],
        option,
      ).to.deep.equal([
        found[0]?.["x-kubespray-variable"],
        found[0]?.["x-kubespray-fallback"],
        found[0]?.default,
      ]);
    return found[0] as Property;
  };

  it("maps every option that names a Kubespray variable from that variable, then its fallback, with the schema's default", () => {
    let checked = 0;
    for (const module of Object.keys(schemas))
      for (const [option, p] of Object.entries(props(module))) {
        const variable = p["x-kubespray-variable"];
        if (!variable) continue;
        const fallback = p["x-kubespray-fallback"];
        // vars/main.yml can say "calico_pool_cidr | default(kube_pods_subnet | default(...))", a bare fallback.
        const then = fallback === undefined ? [] : [bareFallback(fallback)];
        expect(then, `${option}: x-kubespray-fallback ${fallback} is one {variable}`).to.not.include(
          null,
        );
        const row = rows.find((r) => r.option === option);
        expect(row?.variables, option).to.deep.equal([variable, ...then]);
        // A default that differs between releases is the fork's own; the schema's is the newest release's.
        if (!row?.forkDefault) expect(row?.fallback, option).to.deep.equal(p.default);
        checked++;
      }
    expect(checked).to.be.greaterThan(15);
  });

  it("builds the role's own defaults from Kubespray variables as the schemas' x-kubespray-fallback says", () => {
    let templated = 0;
    for (const r of rows.filter(
      (x) => property(x.option)["x-kubespray-variable"] === undefined && x.forkFact === undefined,
    )) {
      const p = property(r.option);
      expect(r.variables, r.option).to.have.length(1);
      const t = typeof r.roleDefault === "string" ? roleTemplate(r.roleDefault) : null;
      expect(t?.template, `${r.option}: defaults/main.yml ${String(r.roleDefault)}`).to.equal(
        p["x-kubespray-fallback"],
      );
      if (t === null) continue;
      // With every Kubespray variable undefined the role gives the schema's default.
      expect(t.whenUndefined, r.option).to.equal(p.default);
      templated++;
    }
    expect(templated).to.equal(3);
  });

  it("takes the fork tree's facts from the lookup's answer, with the schema's default where no tree was read", () => {
    const facts = rows.filter((r) => r.forkFact !== undefined);
    expect(facts.map((r) => [r.option, r.forkFact])).to.deep.equal([
      ["pool_blocksize_kept", "pool_blocksize_kept"],
    ]);
    for (const r of facts) {
      expect(r.variables, r.option).to.deep.equal([]);
      expect(r.fallback, r.option).to.deep.equal(property(r.option).default);
    }
  });

  it("gives the role's own variables the schema's defaults where they are not templates", () => {
    for (const r of rows.filter((x) => x.roleDefault !== undefined)) {
      const module = r.modules[0] as string;
      const d = r.roleDefault;
      if (typeof d === "string" && d.includes("{{")) continue;
      expect(d, r.option).to.deep.equal(props(module)[r.option]?.default);
    }
  });

  it("passes every option of each module from the mapping, and nothing else", () => {
    for (const { module, tasks } of Object.values(ENTRY_POINTS)) {
      const file = readRoleYaml(repoRoot, `tasks/${tasks}`) as Record<string, unknown>[];
      const task = file.find((t) => module in t);
      const args = task?.[module] as Record<string, string>;
      expect(Object.keys(args).sort(), tasks).to.deep.equal(Object.keys(props(module)).sort());
      for (const [option, value] of Object.entries(args))
        expect(value, `${tasks} ${option}`).to.equal(`{{ ${OPTION_VAR_PREFIX}${option} }}`);
      expect(task).to.include({ run_once: true, delegate_to: "{{ groups['kube_control_plane'][0] }}" });
    }
    expect(rows.every((r) => r.modules.length > 0)).to.equal(true);
  });

  it("runs every task only when Kubespray's network plugin is calico, as Kubespray's Calico checks do", () => {
    for (const { tasks } of Object.values(ENTRY_POINTS))
      for (const task of readRoleYaml(repoRoot, `tasks/${tasks}`) as Record<string, unknown>[]) {
        if ("ansible.builtin.import_tasks" in task) continue;
        expect(task.when, `${tasks}: ${String(task.name)}`).to.equal(
          "kube_network_plugin | default('calico') == 'calico'",
        );
      }
  });

  it("declares every input of each entry point with the schema's type, choices and default", () => {
    expect(specs.main).to.deep.equal(specs.preflight);
    for (const [entry, { module }] of Object.entries(ENTRY_POINTS)) {
      const options = specs[entry]?.options ?? {};
      const inputs = rows.filter((r) => r.modules.includes(module)).flatMap((r) => r.variables);
      // The Kubespray variables defaults/main.yml builds the paths on (bin_dir, kube_config_dir), with the
      // default each falls back to there.
      const built: Record<string, unknown> = {};
      for (const r of rows.filter((x) => x.modules.includes(module)))
        if (typeof r.roleDefault === "string")
          Object.assign(built, roleTemplate(r.roleDefault)?.defaults);
      for (const [variable, d] of Object.entries(built))
        expect([options[variable]?.type, options[variable]?.default], variable).to.deep.equal([
          "str",
          d,
        ]);
      // Inputs outside the mapping: those variables, the task's environment, the action plugins' own
      // variables, and the preflight's condition.
      const extra = [
        ...Object.keys(built),
        "calico_encap_environment",
        "calico_encap_mode",
        "calico_encap_bridge_idle_timeout",
        "calico_encap_kubespray_tree",
        "kube_network_plugin",
      ];
      expect(Object.keys(options).sort(), entry).to.deep.equal([...inputs, ...extra].sort());
      for (const r of rows.filter((x) => x.modules.includes(module))) {
        const p = props(module)[r.option] as Property;
        for (const variable of r.variables) {
          const spec = options[variable] as Spec;
          expect(spec.type, variable).to.equal(ANSIBLE_TYPE[p.type]);
          if (p.enum) expect(spec.choices, variable).to.deep.equal(p.enum);
          expect(spec.description?.join(" "), variable).to.match(/\w/);
        }
        // The variable the fallback belongs to declares it as its default (a fact of the fork's tree has none).
        if (r.forkFact !== undefined) continue;
        const last = r.variables[r.variables.length - 1] as string;
        const d = r.fallback !== undefined ? r.fallback : r.roleDefault;
        if (!(typeof d === "string" && d.includes("{{")))
          expect(options[last]?.default, last).to.deep.equal(d);
      }
    }
  });

  it("README's and the playbooks' ansible-playbook commands use --become, as Kubespray runs (admin.conf is root's)", () => {
    const texts = ["README.md", "ansible/playbooks/preflight.yml", "ansible/playbooks/migrate.yml"].map(
      (p) => readFileSync(join(repoRoot, p), "utf8"),
    );
    const commands = texts.flatMap((t) =>
      t.split("\n").filter((l) => /ansible-playbook .*(ansible\/playbooks\/|calico_encap\.kubespray\.)/.test(l)),
    );
    expect(commands.length).to.be.at.least(4);
    for (const c of commands) expect(c).to.include(" --become ");
  });

  it("docs/reference.md's mapping table is the one tools/role-mapping.ts makes (node dist/tools/role-mapping.js)", () => {
    const readme = readFileSync(join(repoRoot, "docs", "reference.md"), "utf8");
    const m = /<!-- role-mapping:begin -->\n([\s\S]*?)\n<!-- role-mapping:end -->/.exec(readme);
    expect(m?.[1], "the table between the role-mapping markers").to.equal(mappingTable(rows));
  });
});
