// The batch program (src/bridge/batch.ts) run by the real sh with coreutils, and its output parsed: any bytes,
// empty output, a failing, a missing and a timed-out argv; the bridge runner sends a batch as one exec.

import { expect } from "chai";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import {
  batchProgram,
  batchTimeout,
  parseBatchOutput,
  shellWord,
} from "../../../src/bridge/batch.js";
import type { ExecMessage } from "../../../src/bridge/protocol.js";
import { BridgeRunner } from "../../../src/bridge/runner.js";
import type { BatchCommand } from "../../../src/cluster/runner.js";

/** Runs the program as the plugin would (sh -c PROGRAM) and parses its output. */
async function runBatchLocally(commands: BatchCommand[]) {
  const r = await promisify(execFile)("sh", ["-c", batchProgram(commands)], { encoding: "utf8" });
  return {
    stdout: r.stdout,
    results: parseBatchOutput(commands, { rc: 0, stdout: r.stdout, stderr: r.stderr }),
  };
}

const cmd = (argv: string[], timeoutSeconds = 10): BatchCommand => ({ argv, timeoutSeconds });

describe("the batch program", function () {
  this.timeout(20000);

  it("returns each argv's rc, stdout and stderr in order, bytes and newlines intact, empty output empty", async () => {
    const { results } = await runBatchLocally([
      cmd(["printf", "a\\000b\\r\\n\\n\\nc é"]),
      cmd(["sh", "-c", 'printf "line 1\\nline 2\\n"; printf "warn: x\\n" >&2; exit 3']),
      cmd(["true"]),
      cmd(["printf", "%s|", "a b", "$HOME", "it's", '"q"', "*", "", "\\n"]),
    ]);
    expect(results).to.deep.equal([
      { rc: 0, stdout: "a\u0000b\r\n\n\nc é", stderr: "", timedOut: false },
      { rc: 3, stdout: "line 1\nline 2\n", stderr: "warn: x\n", timedOut: false },
      { rc: 0, stdout: "", stderr: "", timedOut: false },
      { rc: 0, stdout: `a b|$HOME|it's|"q"|*||\\n|`, stderr: "", timedOut: false },
    ]);
  });

  it("runs the argv concurrently, each under its own timeout (rc 124), a missing program with rc 127", async () => {
    const started = Date.now();
    const { results } = await runBatchLocally([
      cmd(["sleep", "30"], 1),
      cmd(["sh", "-c", "sleep 1; echo done"]),
      cmd(["/nonexistent/calicoctl.sh", "get", "ippool"]),
    ]);
    expect(Date.now() - started).to.be.lessThan(5000);
    expect(results[0]).to.include({ rc: 124, timedOut: true });
    expect(results[1]).to.deep.equal({ rc: 0, stdout: "done\n", stderr: "", timedOut: false });
    expect(results[2]?.rc).to.equal(127);
  });

  it("ignores lines that are not frames (a banner, CRLF line ends)", () => {
    const commands = [cmd(["a"]), cmd(["b"])];
    const out =
      "Welcome to node-1\r\ncalico-encap-batch 1 0 eA== \r\ncalico-encap-batch 0 2  ZXJy\r\n";
    expect(parseBatchOutput(commands, { rc: 0, stdout: out, stderr: "" })).to.deep.equal([
      { rc: 2, stdout: "", stderr: "err", timedOut: false },
      { rc: 0, stdout: "x", stderr: "", timedOut: false },
    ]);
  });

  it("gives every argv without a frame the exec's rc and stderr (a lost connection: rc 255)", () => {
    const commands = [cmd(["calicoctl.sh", "get", "ippool"]), cmd(["kubectl", "get", "nodes"])];
    const lost = {
      rc: 255,
      stdout: "",
      stderr: "the connection to the target failed: ssh: connect refused",
    };
    const results = parseBatchOutput(commands, lost);
    expect(results.map((r) => r.rc)).to.deep.equal([255, 255]);
    expect(results[1]?.stderr).to.equal(
      "the batch of 2 reads on the target returned no result for kubectl get nodes: the connection to the target failed: ssh: connect refused",
    );
    const silent = parseBatchOutput(commands, { rc: 0, stdout: "", stderr: "" })[0];
    expect(silent).to.include({ rc: 255, timedOut: false });
    expect(silent?.stderr).to.include("no output for it (exit code 0)");
    expect(parseBatchOutput(commands, { rc: 124, stdout: "", stderr: "" })[0]?.timedOut).to.equal(
      true,
    );
  });

  it("quotes only the words sh would interpret, and gives the whole program time for its longest read", () => {
    expect(shellWord("/usr/local/bin/calicoctl.sh")).to.equal("/usr/local/bin/calicoctl.sh");
    expect(shellWord("k8s-app=calico-node")).to.equal("k8s-app=calico-node");
    expect(shellWord("it's $x")).to.equal(`'it'\\''s $x'`);
    expect(shellWord("")).to.equal("''");
    expect(batchTimeout([cmd(["a"], 30), cmd(["b"], 60)])).to.equal(70);
  });
});

describe("BridgeRunner.runAll", () => {
  it("sends several reads as one exec of the batch program and returns each read's result", async () => {
    const sent: ExecMessage[] = [];
    const runner = new BridgeRunner((m) => sent.push(m));
    const commands = [
      cmd(["calicoctl.sh", "get", "ippool", "-o", "json"], 60),
      cmd(["kubectl", "version"], 60),
    ];
    const all = runner.runAll(commands);
    expect(sent).to.have.length(1);
    expect(sent[0]).to.include({ id: 1, stdin: null, timeout: 70 });
    expect(sent[0]?.argv.slice(0, 2)).to.deep.equal(["sh", "-c"]);
    expect(sent[0]?.argv[2]).to.include("timeout -k 5 60 calicoctl.sh get ippool -o json >");
    expect(runner.history).to.deep.equal(commands.map((c) => c.argv));
    const out = "calico-encap-batch 0 0 e30= \ncalico-encap-batch 1 1  bm8=\n";
    runner.deliver({ op: "exec_result", id: 1, rc: 0, stdout: out, stderr: "" });
    expect(await all).to.deep.equal([
      { rc: 0, stdout: "{}", stderr: "", timedOut: false },
      { rc: 1, stdout: "", stderr: "no", timedOut: false },
    ]);
  });

  it("sends a single read as a plain exec", async () => {
    const sent: ExecMessage[] = [];
    const runner = new BridgeRunner((m) => sent.push(m));
    const one = runner.runAll([cmd(["kubectl", "version"], 7)]);
    expect(sent).to.deep.equal([
      { op: "exec", id: 1, argv: ["kubectl", "version"], stdin: null, timeout: 7 },
    ]);
    runner.deliver({ op: "exec_result", id: 1, rc: 0, stdout: "v", stderr: "" });
    expect(await one).to.deep.equal([{ rc: 0, stdout: "v", stderr: "", timedOut: false }]);
  });
});
