import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { documentation, returns, undocumented } from "../../tools/ansible-doc.js";
import { computeGeneratedFiles, findStale } from "../../tools/generated-files.js";
import { paramsInterface } from "../../tools/params-type.js";
import { repoRoot } from "../../tools/paths.js";
import { prepareForTypes } from "../../tools/ts-schema-prep.js";
import type { JsonSchemaObject } from "../../src/protocol/json-schema.js";

describe("generated files", function () {
  this.timeout(20000);

  it("are up to date with schemas/ (run `npm run build && npm run generate`)", async () => {
    const expected = await computeGeneratedFiles(repoRoot);
    expect(expected.size).to.be.greaterThan(0);
    const stale = await findStale(repoRoot, expected);
    expect(stale.map((s) => `${s.path} (${s.reason})`)).to.deep.equal([]);
  });

  it("give every module an options type, a result type and a sidecar that parses as YAML", async () => {
    const files = await computeGeneratedFiles(repoRoot);
    expect([...files.keys()]).to.include.members([
      "src/generated/calico_pool_check.options.ts",
      "src/generated/calico_pool_check.result.ts",
      "ansible/library/calico_pool_check.yml",
    ]);
    const sidecar = parse(files.get("ansible/library/calico_pool_check.yml") ?? "") as Record<
      string,
      unknown
    >;
    expect(sidecar).to.have.all.keys("DOCUMENTATION", "EXAMPLES", "RETURN");
    expect(sidecar.EXAMPLES).to.be.a("string").and.to.include("calico_pool_check:");
    expect(files.get("src/generated/calico_pool_check.options.ts")).to.include(
      "export interface CalicoPoolCheckParams {",
    );
  });
});

const schema: JsonSchemaObject = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  "x-ansible": {
    module: "demo",
    short_description: "Demo",
    description: ["One.", "Two."],
    author: "Someone",
    notes: ["A note."],
    examples: "- demo: {name: x}\n",
  },
  properties: {
    name: { type: "string", description: "Name.", "x-ansible-aliases": ["n"] },
    size: { type: "integer", description: "Size.", minimum: 1, maximum: 5, default: 2 },
    tags: { type: "array", description: "Tags.", items: { type: "string", enum: ["a", "b"] } },
    token: { type: "string", description: "Token.", "x-ansible-no-log": true },
    flag: { type: "boolean" },
  },
};

const result: JsonSchemaObject = {
  type: "object",
  required: ["items"],
  definitions: {
    item: {
      type: "object",
      required: ["id"],
      properties: { id: { type: "integer", description: "Id." } },
    },
  },
  properties: {
    items: {
      type: "array",
      description: "Items.",
      items: { $ref: "#/definitions/item" },
      "x-ansible-returned": "success",
    },
    note: { type: ["string", "null"], description: "A note." },
    value: { description: "Anything." },
  },
};

describe("sidecar documentation", () => {
  it("maps options to Ansible's doc fields", () => {
    const doc = documentation("demo", schema);
    expect(doc).to.deep.include({
      module: "demo",
      description: ["One.", "Two."],
      author: ["Someone"],
      notes: ["A note."],
    });
    const options = doc.options as Record<string, Record<string, unknown>>;
    expect(options.name).to.deep.equal({
      description: ["Name."],
      type: "str",
      required: true,
      aliases: ["n"],
    });
    expect(options.size).to.deep.equal({
      description: ["Size.", "Between 1 and 5."],
      type: "int",
      default: 2,
    });
    expect(options.tags).to.deep.equal({
      description: ["Tags."],
      type: "list",
      elements: "str",
      choices: ["a", "b"],
    });
    expect(options.token).to.include({ no_log: true, type: "str" });
    expect(options.flag).to.deep.equal({
      description: ["Not described in the schema."],
      type: "bool",
    });
  });

  it("refuses an x-ansible.module that is not the module's name", () => {
    expect(() => documentation("other", schema)).to.throw(/x-ansible.module is demo/);
  });

  it("maps return values with returned, elements and contains through $ref", () => {
    const ret = returns(result);
    expect(ret.items).to.deep.equal({
      description: ["Items."],
      returned: "success",
      type: "list",
      elements: "dict",
      contains: { id: { description: ["Id."], returned: "always", type: "int" } },
    });
    expect(ret.note).to.include({ type: "str", returned: "when present" });
    expect(ret.value).to.include({ type: "raw" });
  });

  it("lists properties without a description", () => {
    expect(undocumented(schema)).to.deep.equal(["flag"]);
    expect(undocumented(result)).to.deep.equal([]);
  });
});

describe("generated types", () => {
  it("makes options with a default or required non-null in the Params interface", () => {
    const text = paramsInterface(schema, "DemoOptions", "DemoParams");
    expect(text).to.include('  name: NonNullable<DemoOptions["name"]>;');
    expect(text).to.include('  size: NonNullable<DemoOptions["size"]>;');
    expect(text).to.include('  flag: DemoOptions["flag"] | null;');
  });

  it("marks schemas that say nothing of their type as unknown, without touching the input", () => {
    const prepared = prepareForTypes(result);
    expect(prepared.properties?.value?.tsType).to.equal("unknown");
    expect(prepared.properties?.note?.tsType).to.equal(undefined);
    expect(result.properties.value?.tsType).to.equal(undefined);
  });
});

describe("what the documentation promises about traffic", () => {
  it("no doc claims a migration without dropping traffic: an in-place IPIP -> VXLAN switch has a window", () => {
    const docs = [
      "schemas/calico_encap_migrate.options.json",
      "schemas/calico_pool_check.options.json",
      "ansible/library/calico_encap_migrate.yml",
      "ansible/library/calico_pool_check.yml",
      "ansible/roles/calico_encap/meta/argument_specs.yml",
      "ansible/playbooks/migrate.yml",
      "README.md",
    ];
    for (const path of docs)
      expect(readFileSync(join(repoRoot, path), "utf8"), path).to.not.match(
        /without dropping traffic|keeps every node routed/i,
      );
    const sidecar = parse(
      readFileSync(join(repoRoot, "ansible/library/calico_encap_migrate.yml"), "utf8"),
    ) as { DOCUMENTATION: { description: string[] } };
    expect(sidecar.DOCUMENTATION.description.join(" ")).to.include(
      "window with no route between the pool write and the last node's VTEP",
    );
  });
});
