import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "chai";
import { parse } from "yaml";
import {
  argumentSpec,
  DOC_FRAGMENT,
  docFragment,
  FQCN_PREFIX,
  fqcnModules,
  galaxyYml,
  moduleFile,
  sanityIgnores,
  seeAlso,
  sharedOptions,
} from "../../../tools/collection-content.js";
import { loadModuleSchemas } from "../../../tools/module-schemas.js";
import { repoRoot } from "../../../tools/paths.js";

describe("the collection's generated content", () => {
  it("gives AnsibleModule the documented type, default, choices and suboptions, raw where none is documented", () => {
    const spec = argumentSpec({
      ipip_mode: { type: "str", choices: ["Always", "Never"], default: "Never", description: ["x"] },
      extra_pools: {
        type: "list",
        elements: "dict",
        suboptions: { cidr: { type: "str", required: true }, anything: { description: ["y"] } },
      },
      free: { description: ["z"] },
    });
    expect(spec).to.deep.equal({
      ipip_mode: { type: "str", choices: ["Always", "Never"], default: "Never" },
      extra_pools: {
        type: "list",
        elements: "dict",
        options: { cidr: { type: "str", required: true }, anything: { type: "raw" } },
      },
      free: { type: "raw" },
    });
  });

  it("names the modules by FQCN where a task calls them, and nowhere else", () => {
    const tasks = [
      "- name: Calico preflight",
      "  calico_pool_check:",
      "    ipip_mode: Never",
      "  register: calico_pool_check",
      "# calico_pool_check: a comment",
      "- calico_encap_migrate:",
    ].join("\n");
    expect(fqcnModules(tasks, ["calico_pool_check", "calico_encap_migrate"])).to.equal(
      [
        "- name: Calico preflight",
        `  ${FQCN_PREFIX}.calico_pool_check:`,
        "    ipip_mode: Never",
        "  register: calico_pool_check",
        "# calico_pool_check: a comment",
        `- ${FQCN_PREFIX}.calico_encap_migrate:`,
      ].join("\n"),
    );
  });

  it("ignores in sanity only the GPLv3 header, per module and lookup, saying why", () => {
    expect(sanityIgnores(["a", "b"]).trim().split("\n")).to.deep.equal([
      "plugins/modules/a.py validate-modules:missing-gplv3-license # the collection is Apache-2.0 (galaxy.yml), not GPLv3",
      "plugins/modules/b.py validate-modules:missing-gplv3-license # the collection is Apache-2.0 (galaxy.yml), not GPLv3",
      "plugins/lookup/kubespray_calico_defaults.py validate-modules:missing-gplv3-license # the collection is Apache-2.0 (galaxy.yml), not GPLv3",
    ]);
  });
});

describe("the options the modules share, documented once (a doc fragment)", () => {
  it("puts in the fragment exactly the options both modules document alike, and leaves them out of each module", async () => {
    const modules = await loadModuleSchemas(repoRoot);
    const shared = sharedOptions(modules);
    expect(shared).to.include.members(["ipip_mode", "calicoctl_path", "kubeconfig", "command_timeout"]);
    // Options only one module has, or documented otherwise in each, stay with their module.
    expect(shared).to.not.include.members(["fail_on_mismatch", "tunnel_pool_cidr", "wait_timeout"]);
    const fragment = docFragment(modules, shared);
    expect(fragment).to.include("class ModuleDocFragment(object):");
    for (const name of shared) expect(fragment).to.match(new RegExp(`^  ${name}:$`, "m"));
    for (const mod of modules) {
      const text = moduleFile(mod, shared);
      expect(text).to.include(`extends_documentation_fragment:\n  - ${FQCN_PREFIX}.${DOC_FRAGMENT}`);
      const doc = text.slice(text.indexOf('DOCUMENTATION = r"""'), text.indexOf('EXAMPLES = r"""'));
      for (const name of shared) expect(doc, `${mod.name} ${name}`).to.not.match(new RegExp(`^  ${name}:$`, "m"));
      // The argument spec keeps every option: AnsibleModule checks them all in module mode.
      for (const name of shared) expect(text).to.include(`"${name}": {`);
    }
  });

  it("is versioned as the changelog's latest release (changelogs/changelog.yaml)", async () => {
    const pkg = JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8")) as {
      version: string;
    };
    const changelog = parse(
      await readFile(join(repoRoot, "changelogs", "changelog.yaml"), "utf8"),
    ) as { releases: Record<string, unknown> };
    const byNumber = (v: string): number[] => v.split(/[.-]/).map(Number);
    const latest = Object.keys(changelog.releases).sort((a, b) => {
      const [x, y] = [byNumber(a), byNumber(b)];
      for (let i = 0; i < Math.max(x.length, y.length); i++)
        if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
      return 0;
    });
    expect(pkg.version).to.equal(latest.at(-1));
  });

  it("sees also every other module, the role and Kubespray's documentation, and adds each module in the first release", async () => {
    const mods = await loadModuleSchemas(repoRoot);
    const changelog = parse(
      await readFile(join(repoRoot, "changelogs", "changelog.yaml"), "utf8"),
    ) as { ancestor: string | null; releases: Record<string, unknown> };
    expect(changelog.ancestor).to.equal(null);
    const first = Object.keys(changelog.releases).sort()[0];
    for (const mod of mods) {
      const see = seeAlso(mod, mods);
      expect(see.filter((e) => e.module).map((e) => e.module)).to.deep.equal(
        mods.filter((m) => m !== mod).map((m) => `${FQCN_PREFIX}.${m.name}`),
      );
      expect(see.map((e) => e.name).filter(Boolean)).to.include(`The role ${FQCN_PREFIX}.calico_encap`);
      // Every link is the role's README in the collection or Kubespray's own pages: nothing invented.
      for (const { link } of see.filter((e) => e.link))
        expect(link).to.match(
          /^(roles\/calico_encap\/README\.md|https:\/\/github\.com\/kubernetes-sigs\/kubespray\/)/,
        );
      const text = moduleFile(mod, sharedOptions(mods), mods);
      expect(text).to.include("seealso:");
      expect(text).to.include(`version_added: ${first}`);
    }
  });

  it("writes galaxy.yml with real values only: no null or empty field, no URL the project does not have", () => {
    const galaxy = parse(galaxyYml("1.0.0")) as Record<string, unknown>;
    for (const [key, value] of Object.entries(galaxy)) {
      expect(value, key).to.not.equal(null);
      if (typeof value === "object") expect(Object.keys(value as object), key).to.have.length.above(0);
    }
    for (const key of ["repository", "documentation", "homepage", "issues"])
      expect(galaxy).to.not.have.property(key);
    expect(galaxy).to.include({ namespace: "calico_encap", name: "kubespray", version: "1.0.0" });
  });
});
