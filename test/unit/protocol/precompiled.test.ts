import { expect } from "chai";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import optionsSchema from "../../../schemas/calico_pool_check.options.json" with { type: "json" };
import { validate as precompiledPoolCheck } from "../../../src/generated/calico_pool_check.options.validator.js";
import type { JsonSchemaObject } from "../../../src/protocol/json-schema.js";
import type { OptionsValidator } from "../../../src/protocol/options-validator.js";
import type { ValidationSettings } from "../../../src/protocol/validate.js";
import { validateOptions } from "../../../src/protocol/validate.js";
import { standaloneValidator } from "../../../tools/standalone.js";
import { args, testSchema } from "./helpers/test-module.js";

const settings: ValidationSettings = {
  moduleName: "m",
  ignoreUnknownOpts: false,
  stringConversionAction: "warn",
};

/** Option sets that exercise every check: types, choices, pattern, range, unknown, several at once. */
const TEST_MODULE_CASES: Record<string, unknown>[] = [
  args(),
  args({ state: "gone" }),
  args({ name: "Bad Name" }),
  args({ size: 0 }),
  args({ size: 11, state: "x", name: "-x" }),
  args({ size: "many" }),
  args({ tags: "a,b", labels: "k=v", enabled: "yes", port: "81" }),
  args({ bogus: 1, st: "absent" }),
  { size: 3 },
];

const POOL_CHECK_CASES: Record<string, unknown>[] = [
  {},
  { ipip_mode: "Always", vxlan_mode: "Never", network_backend: "bird", pool_blocksize: 24 },
  { ipip_mode: "Sometimes" },
  { pool_blocksize: 19 },
  { pool_blocksize_ipv6: 200, vxlan_mode_ipv6: "x", datastore: "consul" },
  { pool_name: "a b" },
  { command_timeout: 0 },
  { datastore_client: "kubectl", nat_outgoing: "no", bogus: true },
  { pool_cidr: "banana", pool_cidr_ipv6: "10.233.64.0/18" },
  { pool_cidr: "10.233.64.7/18", pool_cidr_ipv6: "::ffff:10.0.0.0/104" },
];

async function importStandalone(schema: JsonSchemaObject): Promise<OptionsValidator> {
  const dir = await mkdtemp(join(tmpdir(), "calico-encap-standalone-"));
  try {
    const file = join(dir, "validator.mjs");
    await writeFile(file, standaloneValidator(schema));
    const mod = (await import(pathToFileURL(file).href)) as { validate: OptionsValidator };
    return mod.validate;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("precompiled options validators", () => {
  it("give the test module's outcomes word for word, as compiling at run time does", async () => {
    const precompiled = await importStandalone(testSchema);
    for (const options of TEST_MODULE_CASES) {
      const compiled = validateOptions(testSchema, { ...options }, settings);
      const standalone = validateOptions(testSchema, { ...options }, settings, precompiled);
      expect(standalone, JSON.stringify(options)).to.deep.equal(compiled);
    }
  });

  it("give calico_pool_check's outcomes word for word, as compiling its schema does", () => {
    const schema = optionsSchema as JsonSchemaObject;
    const errors: (string | null)[] = [];
    for (const options of POOL_CHECK_CASES) {
      const compiled = validateOptions(schema, { ...options }, settings);
      const generated = validateOptions(schema, { ...options }, settings, precompiledPoolCheck);
      expect(generated, JSON.stringify(options)).to.deep.equal(compiled);
      errors.push(generated.error);
    }
    expect(errors.slice(0, 4)).to.deep.equal([
      null,
      null,
      "value of ipip_mode must be one of: Always, CrossSubnet, Never, got: Sometimes",
      "value of pool_blocksize must be between 20 and 32, got: 19",
    ]);
  });

  it("exports the validator as ESM without requiring anything at run time", () => {
    const code = standaloneValidator(testSchema);
    expect(code).to.match(/^"use strict";\s*export const validate = /);
    expect(code).not.to.match(/\brequire\(/);
  });
});
