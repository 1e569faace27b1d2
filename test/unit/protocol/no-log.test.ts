import { expect } from "chai";
import {
  NO_LOG_MASK,
  NO_LOG_PLACEHOLDER,
  removeValues,
  secretStrings,
} from "../../../src/protocol/no-log.js";

describe("no_log", () => {
  it("takes the scalar leaves of a secret value, skipping bools, null and empty strings", () => {
    expect(secretStrings({ a: ["x", 5, true, null, ""] })).to.deep.equal(["x", "5"]);
  });

  it("replaces whole values with the placeholder and inner occurrences with the mask", () => {
    expect(removeValues({ a: "pw", b: "my pw here", c: ["pw"] }, ["pw"])).to.deep.equal({
      a: NO_LOG_PLACEHOLDER,
      b: `my ${NO_LOG_MASK} here`,
      c: [NO_LOG_PLACEHOLDER],
    });
  });

  it("masks the longest secret first", () => {
    expect(removeValues("abcdef", ["abc", "abcdef1", "bcdef"])).to.equal(`a${NO_LOG_MASK}`);
  });

  it("replaces numbers that contain a secret and keeps bools, null and keys", () => {
    expect(removeValues({ pw: 1234, ok: true, n: null, other: 99 }, ["23"])).to.deep.equal({
      pw: NO_LOG_PLACEHOLDER,
      ok: true,
      n: null,
      other: 99,
    });
  });

  it("returns the value untouched without secrets", () => {
    const v = { a: "x" };
    expect(removeValues(v, [])).to.equal(v);
  });
});
