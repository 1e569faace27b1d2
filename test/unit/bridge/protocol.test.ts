import { expect } from "chai";
import { encodeMessage, parsePluginLine, resultMessage } from "../../../src/bridge/protocol.js";

function error(line: string): string {
  const parsed = parsePluginLine(line);
  if (parsed.ok) throw new Error(`expected an error for ${line}`);
  return parsed.error;
}

describe("bridge messages", () => {
  it("reads a run op with its args", () => {
    const parsed = parsePluginLine(
      JSON.stringify({ op: "run", module: "calico_pool_check", args: { ipip_mode: "Always" } }),
    );
    expect(parsed).to.deep.equal({
      ok: true,
      message: { op: "run", module: "calico_pool_check", args: { ipip_mode: "Always" } },
    });
  });

  it("reads an exec_result", () => {
    const parsed = parsePluginLine(
      JSON.stringify({ op: "exec_result", id: 3, rc: 1, stdout: "", stderr: "boom" }),
    );
    expect(parsed).to.deep.equal({
      ok: true,
      message: { op: "exec_result", id: 3, rc: 1, stdout: "", stderr: "boom" },
    });
  });

  it("says a line is not JSON, quoting it, and what was expected", () => {
    const e = error("Traceback (most recent call last):");
    expect(e).to.include('a line that is not JSON: "Traceback (most recent call last):"');
    expect(e).to.include('expected one JSON object per line with op "run" or "exec_result"');
    expect(e).to.include("same calico-encap release");
  });

  it("cuts a long line in its message", () => {
    const e = error("x".repeat(5000));
    expect(e.length).to.be.lessThan(500);
    expect(e).to.include("...");
  });

  it("names JSON that is not an object", () => {
    expect(error("[1, 2]")).to.include("JSON of type list, not an object");
  });

  it("names an unknown op", () => {
    expect(error('{"op":"exec","id":1}')).to.include('op "exec" in');
    expect(error('{"id":1}')).to.include('an object without "op": "{\\"id\\":1}"');
  });

  it("rejects a run op without a module or with args that are not an object", () => {
    expect(error('{"op":"run","args":{}}')).to.include("a run op without a module name");
    expect(error('{"op":"run","module":"m","args":[]}')).to.include(
      "a run op whose args are of type list, not a JSON object",
    );
  });

  it("rejects an exec_result with a bad id, rc, stdout or stderr", () => {
    const ok = { op: "exec_result", id: 1, rc: 0, stdout: "", stderr: "" };
    const bad = (patch: object) => error(JSON.stringify({ ...ok, ...patch }));
    expect(bad({ id: "1" })).to.include('whose id is "1", not a command number');
    expect(bad({ id: 0 })).to.include("whose id is 0, not a command number");
    expect(bad({ rc: 1.5 })).to.include("whose rc is 1.5, not an integer");
    expect(bad({ rc: null })).to.include("whose rc is null, not an integer");
    expect(bad({ stdout: null })).to.include("whose stdout is of type NoneType, not a string");
    expect(bad({ stderr: 3 })).to.include("whose stderr is of type int, not a string");
  });

  it("writes each message as one line, newlines inside strings escaped", () => {
    const line = encodeMessage({ op: "log", level: 1, msg: "two\nlines" });
    expect(line.endsWith("\n")).to.equal(true);
    expect(line.slice(0, -1)).to.not.include("\n");
    expect(JSON.parse(line)).to.deep.equal({ op: "log", level: 1, msg: "two\nlines" });
  });

  it("turns a result that cannot be serialized into a failure", () => {
    const cyclic: Record<string, unknown> = { changed: false };
    cyclic.self = cyclic;
    const m = resultMessage(cyclic);
    expect(m.result.failed).to.equal(true);
    expect(m.result.msg).to.include("could not be serialized as JSON");
  });
});
