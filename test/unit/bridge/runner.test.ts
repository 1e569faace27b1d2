import { expect } from "chai";
import type { ExecMessage } from "../../../src/bridge/protocol.js";
import { BridgeRunner } from "../../../src/bridge/runner.js";

function runnerWithOutbox(): { runner: BridgeRunner; sent: ExecMessage[] } {
  const sent: ExecMessage[] = [];
  return { runner: new BridgeRunner((m) => sent.push(m)), sent };
}

describe("BridgeRunner", () => {
  it("sends an exec op per command and settles each by its id, in any order", async () => {
    const { runner, sent } = runnerWithOutbox();
    const a = runner.run(["calicoctl.sh", "get", "ippool", "-o", "json"], { timeoutSeconds: 60 });
    const b = runner.run(["kubectl", "apply", "-f", "-"], { timeoutSeconds: 5, stdin: "{}" });
    const c = runner.run(["kubectl", "version"], { timeoutSeconds: 7 });
    expect(sent).to.deep.equal([
      {
        op: "exec",
        id: 1,
        argv: ["calicoctl.sh", "get", "ippool", "-o", "json"],
        stdin: null,
        timeout: 60,
      },
      { op: "exec", id: 2, argv: ["kubectl", "apply", "-f", "-"], stdin: "{}", timeout: 5 },
      { op: "exec", id: 3, argv: ["kubectl", "version"], stdin: null, timeout: 7 },
    ]);
    expect(runner.pendingIds).to.deep.equal([1, 2, 3]);
    expect(runner.deliver({ op: "exec_result", id: 3, rc: 0, stdout: "v", stderr: "" })).to.equal(
      true,
    );
    expect(runner.deliver({ op: "exec_result", id: 1, rc: 2, stdout: "", stderr: "no" })).to.equal(
      true,
    );
    expect(runner.deliver({ op: "exec_result", id: 2, rc: 0, stdout: "ok", stderr: "" })).to.equal(
      true,
    );
    expect(await a).to.deep.equal({ rc: 2, stdout: "", stderr: "no", timedOut: false });
    expect(await b).to.deep.equal({ rc: 0, stdout: "ok", stderr: "", timedOut: false });
    expect(await c).to.deep.equal({ rc: 0, stdout: "v", stderr: "", timedOut: false });
    expect(runner.pendingIds).to.deep.equal([]);
    expect(runner.history).to.have.length(3);
  });

  it("maps exit code 124 of coreutils timeout to a timed-out command", async () => {
    const { runner } = runnerWithOutbox();
    const r = runner.run(["calicoctl.sh", "get", "ippool"], { timeoutSeconds: 1 });
    runner.deliver({ op: "exec_result", id: 1, rc: 124, stdout: "", stderr: "" });
    expect((await r).timedOut).to.equal(true);
  });

  it("refuses an answer for a command that is not pending", () => {
    const { runner } = runnerWithOutbox();
    expect(runner.deliver({ op: "exec_result", id: 1, rc: 0, stdout: "", stderr: "" })).to.equal(
      false,
    );
  });

  it("fails pending and later commands once closed, with the reason", async () => {
    const { runner, sent } = runnerWithOutbox();
    const pending = runner.run(["kubectl", "get", "nodes"], { timeoutSeconds: 1 });
    runner.close("the plugin left");
    let error: unknown;
    try {
      await pending;
    } catch (e) {
      error = e;
    }
    expect(String(error)).to.include("the plugin left");
    let later: unknown;
    try {
      await runner.run(["kubectl", "get", "pods"], { timeoutSeconds: 1 });
    } catch (e) {
      later = e;
    }
    expect(String(later)).to.include("the plugin left");
    expect(sent).to.have.length(1);
  });

  it("rejects an empty command without sending it", async () => {
    const { runner, sent } = runnerWithOutbox();
    let error: unknown;
    try {
      await runner.run([], { timeoutSeconds: 1 });
    } catch (e) {
      error = e;
    }
    expect(String(error)).to.include("empty command");
    expect(sent).to.deep.equal([]);
  });
});
