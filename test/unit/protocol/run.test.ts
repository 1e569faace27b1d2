import { expect } from "chai";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runModuleMode } from "../../../src/protocol/run.js";
import { args, testModule } from "./helpers/test-module.js";

const MAIN = fileURLToPath(new URL("./helpers/echo-module-main.js", import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function runNode(argsPath: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, argsPath], (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

describe("module mode", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "calico-encap-run-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function argsFile(name: string, content: string): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  }

  it("prints exactly one JSON object on stdout, logs on stderr, exit 0", async () => {
    const r = await runNode(await argsFile("ok", JSON.stringify(args({ _ansible_verbosity: 0 }))));
    const lines = r.stdout.split("\n");
    expect(lines).to.have.length(2);
    expect(lines[1]).to.equal("");
    const result = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(result.changed).to.equal(true);
    expect(r.code).to.equal(0);
    expect(r.stderr).to.include("this console.log line must not reach stdout");
    expect(r.stderr).to.include("a log line that starts with a brace");
    expect(r.stderr.split("\n").some((l) => l.startsWith("{"))).to.equal(false);
  });

  it("exits 1 with one failed JSON object when the module crashes", async () => {
    const r = await runNode(await argsFile("crash", JSON.stringify(args({ comment: "crash" }))));
    expect(r.code).to.equal(1);
    expect(r.stdout.trimEnd().split("\n")).to.have.length(1);
    expect(JSON.parse(r.stdout)).to.include({ failed: true, msg: "boom" });
    expect(r.stdout).to.not.include("    at ");
  });

  it("exits 1 with one failed JSON object when the args file is missing", async () => {
    const r = await runNode(join(dir, "nope"));
    expect(r.code).to.equal(1);
    const result = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(result.failed).to.equal(true);
    expect(result.msg).to.include(join(dir, "nope"));
  });

  it("runs in-process with injected streams and restores console.log", async () => {
    const path = await argsFile("inproc", JSON.stringify(args()));
    let stdout = "";
    let stderr = "";
    let code = -1;
    const originalLog = console.log;
    const def = testModule((ctx) => {
      console.log("noise");
      return Promise.resolve({ name: ctx.params.name });
    });
    await runModuleMode(def, path, {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      setExitCode: (c) => (code = c),
    });
    expect(JSON.parse(stdout)).to.include({ name: "web", changed: false });
    expect(stderr).to.equal("calico-encap: noise\n");
    expect(code).to.equal(0);
    expect(console.log).to.equal(originalLog);
  });
});
