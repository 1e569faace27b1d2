import { expect } from "chai";
import {
  ansibleTypeOf,
  coerce,
  coerceBool,
  coerceDict,
  coerceInt,
  coerceList,
  coerceStr,
} from "../../../src/protocol/coerce.js";

describe("coerce", () => {
  it("maps JSON Schema types to Ansible types", () => {
    expect(ansibleTypeOf({ type: "string" })).to.equal("str");
    expect(ansibleTypeOf({ type: "integer" })).to.equal("int");
    expect(ansibleTypeOf({ type: "boolean" })).to.equal("bool");
    expect(ansibleTypeOf({ type: "array" })).to.equal("list");
    expect(ansibleTypeOf({ type: "object" })).to.equal("dict");
    expect(ansibleTypeOf({ type: ["null", "string"] })).to.equal("str");
    expect(ansibleTypeOf({})).to.equal("raw");
  });

  it("reads booleans case-insensitively, with surrounding spaces", () => {
    expect(coerceBool(" Yes ")).to.deep.equal({ ok: true, value: true });
    expect(coerceBool("OFF")).to.deep.equal({ ok: true, value: false });
    expect(coerceBool("2").ok).to.equal(false);
    expect(coerceBool(null).ok).to.equal(false);
  });

  it("reads ints from signed digit strings and bools", () => {
    expect(coerceInt("-12")).to.deep.equal({ ok: true, value: -12 });
    expect(coerceInt(" 26 ")).to.deep.equal({ ok: true, value: 26 });
    expect(coerceInt(true)).to.deep.equal({ ok: true, value: 1 });
    expect(coerceInt("1.5").ok).to.equal(false);
    expect(coerceInt("").ok).to.equal(false);
  });

  it("prints non-strings as Python's str() would", () => {
    expect(coerceStr(false, "ignore")).to.deep.equal({ ok: true, value: "False" });
    expect(coerceStr(null, "ignore")).to.deep.equal({ ok: true, value: "None" });
    expect(coerceStr({ a: "it's" }, "ignore")).to.deep.equal({ ok: true, value: `{'a': "it's"}` });
    expect(coerceStr(1.5, "ignore")).to.deep.equal({ ok: true, value: "1.5" });
  });

  it("turns a number into a one-element list of its text", () => {
    expect(coerceList(5)).to.deep.equal({ ok: true, value: ["5"] });
    expect(coerceList("")).to.deep.equal({ ok: true, value: [""] });
    expect(coerceList({}).ok).to.equal(false);
  });

  it("rejects an unterminated quote in key=value text", () => {
    expect(coerceDict("a='x").ok).to.equal(false);
    expect(coerceDict("[1]").ok).to.equal(false);
  });

  it("keeps raw values as they are", () => {
    const v = { x: [1] };
    expect(coerce(v, "raw", "warn")).to.deep.equal({ ok: true, value: v });
  });
});
