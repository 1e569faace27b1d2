import { expect } from "chai";
import { readFile } from "node:fs/promises";
import { compileSchema, createAjv } from "../../../src/protocol/ajv.js";
import type { JsonSchema } from "../../../src/protocol/json-schema.js";

async function schema(name: string): Promise<JsonSchema> {
  return JSON.parse(
    await readFile(new URL(`../../../../schemas/${name}`, import.meta.url), "utf8"),
  ) as JsonSchema;
}

describe("ajv", () => {
  it("compiles the project's schemas in strict mode, custom keywords included", async () => {
    for (const name of ["calico_pool_check.options.json", "calico_pool_check.result.json"]) {
      const s = await schema(name);
      expect(compileSchema(s)).to.be.a("function");
    }
  });

  it("still rejects an unknown keyword (strict mode is on)", () => {
    expect(() => createAjv().compile({ type: "object", "x-unknown-keyword": true })).to.throw(
      /unknown keyword/,
    );
  });

  it("compiles the same schema object once", () => {
    const s: JsonSchema = { type: "string" };
    expect(compileSchema(s)).to.equal(compileSchema(s));
  });
});
