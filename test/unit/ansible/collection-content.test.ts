import { expect } from "chai";
import {
  argumentSpec,
  FQCN_PREFIX,
  fqcnModules,
  sanityIgnores,
} from "../../../tools/collection-content.js";

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

  it("ignores in sanity only the GPLv3 header, per module, saying why", () => {
    expect(sanityIgnores(["a", "b"]).trim().split("\n")).to.deep.equal([
      "plugins/modules/a.py validate-modules:missing-gplv3-license # the collection is Apache-2.0 (galaxy.yml), not GPLv3",
      "plugins/modules/b.py validate-modules:missing-gplv3-license # the collection is Apache-2.0 (galaxy.yml), not GPLv3",
    ]);
  });
});
