// The batch program (src/bridge/batch.ts) run by the real sh with coreutils, and its output parsed: any bytes,
// empty output, a failing, a missing and a timed-out argv; the bridge runner sends a batch as one exec.

import { expect } from "chai";
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { batchProgram, parseBatchOutput, shellWord } from "../../../src/bridge/batch.js";
import { batchTimeout } from "../../../src/cluster/runner.js";
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
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

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

/** A PATH with every tool the program uses but `without`, for the target's shell. */
function pathWithout(without: string): string {
  const bin = mkdtempSync(join(tmpdir(), "calico-encap-bin-"));
  // The tools the program needs (base64, mktemp, timeout, rm: no cat, no tr) and the tests' commands, each the
  // file PATH finds (`command -v` would name sh's builtin true).
  const dirs = (process.env.PATH ?? "").split(":");
  for (const tool of ["base64", "mktemp", "timeout", "rm", "sleep", "true", "sh"]) {
    const file = dirs.map((d) => join(d, tool)).find((f) => existsSync(f));
    if (tool !== without && file !== undefined) symlinkSync(file, join(bin, tool));
  }
  return bin;
}

const SHELLS = [
  ["dash", "/usr/bin/dash"],
  ["busybox sh", "/usr/bin/busybox"],
] as const;

describe("the batch program's edges under dash and busybox sh", function () {
  this.timeout(30000);
  const run = (shell: string, program: string, env: Record<string, string> = {}) =>
    promisify(execFile)(
      shell,
      shell.endsWith("busybox") ? ["sh", "-c", program] : ["-c", program],
      {
        encoding: "utf8",
        env: { ...process.env, ...env },
      },
    ).then(
      (r) => ({ rc: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({
        rc: e.code,
        stdout: e.stdout,
        stderr: e.stderr,
      }),
    );

  for (const [name, shell] of SHELLS) {
    it(`${name}: a target without base64 fails every read with rc 127 and says so, instead of empty output`, async () => {
      expect(existsSync(shell), `${shell} (make setup installs it)`).to.equal(true);
      const commands = [cmd(["true"]), cmd(["true"])];
      const exec = await run(shell, batchProgram(commands), { PATH: pathWithout("base64") });
      const results = parseBatchOutput(commands, exec);
      expect(results.map((r) => r.rc)).to.deep.equal([127, 127]);
      expect(results[0]?.stderr).to.match(/base64 not found on the target/);
    });

    it(`${name}: frames a long output, a stderr and an empty output with base64, mktemp, timeout and rm alone`, async () => {
      const long = "0123456789abcdef".repeat(40);
      const commands = [
        cmd(["sh", "-c", `printf '%s\\n' ${long}; printf 'warn: x\\n' >&2; exit 3`]),
        cmd(["true"]),
      ];
      const exec = await run(shell, batchProgram(commands), { PATH: pathWithout("") });
      expect(exec.stderr).to.equal("");
      expect(exec.stdout.split("\n").filter((l) => l !== "")).to.have.length(2);
      expect(parseBatchOutput(commands, exec)).to.deep.equal([
        { rc: 3, stdout: `${long}\n`, stderr: "warn: x\n", timedOut: false },
        { rc: 0, stdout: "", stderr: "", timedOut: false },
      ]);
    });

    it(`${name}: a read with stdin gets exactly its bytes, the others none`, async () => {
      const stdin = 'apiVersion: projectcalico.org/v3\nkind: IPPool\n---\nit\'s "q" $HOME \u00e9\n';
      const commands = [
        { ...cmd(["cat"]), stdin },
        cmd(["cat"]),
        { ...cmd(["sh", "-c", "cat; exit 4"]), stdin: "" },
      ];
      const results = parseBatchOutput(commands, await run(shell, batchProgram(commands)));
      expect(results).to.deep.equal([
        { rc: 0, stdout: stdin, stderr: "", timedOut: false },
        { rc: 0, stdout: "", stderr: "", timedOut: false },
        { rc: 4, stdout: "", stderr: "", timedOut: false },
      ]);
    });

    it(`${name}: a batch ended by TERM or HUP removes its temporary folder`, async () => {
      for (const signal of ["SIGTERM", "SIGHUP"] as const) {
        const tmp = mkdtempSync(join(tmpdir(), "calico-encap-batch-tmp-"));
        const program = batchProgram([cmd(["sleep", "20"], 30)]);
        const child = spawn(
          shell,
          shell.endsWith("busybox") ? ["sh", "-c", program] : ["-c", program],
          {
            env: { ...process.env, TMPDIR: tmp },
            stdio: "ignore",
          },
        );
        for (let i = 0; i < 50 && readdirSync(tmp).length === 0; i++) await sleep(50);
        expect(readdirSync(tmp), "the batch made its folder").to.have.length(1);
        child.kill(signal);
        await new Promise((r) => child.once("exit", r));
        expect(readdirSync(tmp), `${signal}: the folder is gone`).to.deep.equal([]);
      }
    });
  }

  it("a command timeout -k had to KILL (rc 137) is timed out, not a failure with exit code 137", async () => {
    const { results } = await runBatchLocally([cmd(["sh", "-c", 'trap "" TERM; sleep 30'], 1)]);
    expect(results[0]).to.include({ rc: 137, timedOut: true });
  });

  it("keeps the program's own stderr (a full disk) with every read that failed, when frames exist", () => {
    const commands = [cmd(["a"]), cmd(["b"])];
    const out = "calico-encap-batch 0 0 eA== \ncalico-encap-batch 1 255  \n";
    const r = parseBatchOutput(commands, {
      rc: 0,
      stdout: out,
      stderr: "sh: 1: cannot create /tmp/tmp.x/1o: No space left on device\n",
    });
    expect(r[0]).to.deep.equal({ rc: 0, stdout: "x", stderr: "", timedOut: false });
    expect(r[1]?.stderr).to.equal(
      "the batch program on the target: sh: 1: cannot create /tmp/tmp.x/1o: No space left on device",
    );
  });
});
