import { expect } from "chai";
import {
  emitResult,
  formatLogLines,
  resultLine,
  stderrLogger,
} from "../../../src/protocol/emit.js";

function sink(): { text: string; write(s: string): void } {
  return {
    text: "",
    write(s: string) {
      this.text += s;
    },
  };
}

describe("emit", () => {
  it("writes exactly one JSON object and a newline, and exit code 0 on success", () => {
    const out = sink();
    let code = -1;
    emitResult({ changed: true, msg: "multi\nline" }, out, (c) => (code = c));
    expect(out.text.endsWith("\n")).to.equal(true);
    expect(out.text.split("\n")).to.have.length(2);
    expect(JSON.parse(out.text)).to.deep.equal({ changed: true, msg: "multi\nline" });
    expect(code).to.equal(0);
  });

  it("sets exit code 1 for a failed result", () => {
    let code = -1;
    emitResult({ failed: true, msg: "x" }, sink(), (c) => (code = c));
    expect(code).to.equal(1);
  });

  it("turns a result that cannot be serialized into a failed JSON object", () => {
    const circular: Record<string, unknown> = { changed: false };
    circular.self = circular;
    const out = sink();
    let code = -1;
    emitResult(circular, out, (c) => (code = c));
    const parsed = JSON.parse(out.text) as Record<string, unknown>;
    expect(parsed.failed).to.equal(true);
    expect(parsed.msg).to.match(/could not be serialized as JSON/);
    expect(code).to.equal(1);
    expect(JSON.parse(resultLine({ big: 1n }))).to.have.property("failed", true);
  });

  it("prefixes every log line so none starts with a brace", () => {
    const text = formatLogLines('{"op":"x"}\nsecond');
    expect(text).to.equal('calico-encap: {"op":"x"}\ncalico-encap: second\n');
    const err = sink();
    stderrLogger(err)("{");
    expect(err.text.split("\n").filter((l) => l.startsWith("{"))).to.deep.equal([]);
  });
});
