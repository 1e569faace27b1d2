// The module path (`calico-encap module calico_pool_check <args>`) loads no package it does not use:
// never Ajv (the options validator is precompiled), and execa only once a command runs.

import { expect } from "chai";
import { execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import type { ExecMessage } from "../../../src/bridge/protocol.js";
import { REPO } from "../../support/ansible.js";
import { live218 } from "../../support/builders.js";
import { calicoctlScript, kubectlScript } from "../../support/calico-json.js";
import { fakeTools } from "../../support/fake-commands.js";
import { scriptAnswerer } from "../bridge/helpers/fake-plugin.js";

const CLI = join(REPO, "dist", "src", "cli.js");

/** A preload that records every package file loaded: ESM through a load hook, CommonJS at exit. */
async function writeTracker(dir: string, log: string): Promise<string> {
  const hooks = join(dir, "hooks.mjs");
  await writeFile(
    hooks,
    [
      'import { appendFileSync } from "node:fs";',
      "export async function load(url, context, next) {",
      `  if (url.includes("/node_modules/")) appendFileSync(${JSON.stringify(log)}, url + "\\n");`,
      "  return next(url, context);",
      "}",
      "",
    ].join("\n"),
  );
  const preload = join(dir, "preload.mjs");
  await writeFile(
    preload,
    [
      'import { appendFileSync } from "node:fs";',
      'import { createRequire, register } from "node:module";',
      `register(${JSON.stringify(pathToFileURL(hooks).href)});`,
      "const cache = createRequire(import.meta.url).cache;",
      'process.on("exit", () => {',
      '  const files = Object.keys(cache).filter((f) => f.includes("/node_modules/"));',
      `  appendFileSync(${JSON.stringify(log)}, files.map((f) => f + "\\n").join(""));`,
      "});",
      "",
    ].join("\n"),
  );
  return preload;
}

/** Package names (scope included) of the files in the log. */
async function packagesIn(log: string): Promise<string[]> {
  const text = await readFile(log, "utf8").catch(() => "");
  const names = text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      const rest = l.slice(l.lastIndexOf("/node_modules/") + "/node_modules/".length).split("/");
      return rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : (rest[0] ?? "");
    });
  return [...new Set(names)].sort();
}

function runNode(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, argv, { cwd: REPO }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

describe("packages loaded on the module path", function () {
  this.timeout(20000);
  let dir: string;
  let run = 0;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "calico-encap-imports-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function packagesLoadedBy(argv: string[]): Promise<{ packages: string[]; stdout: string }> {
    const log = join(dir, `loaded-${++run}.log`);
    const preload = await writeTracker(dir, log);
    const r = await runNode(["--import", pathToFileURL(preload).href, ...argv]);
    return { packages: await packagesIn(log), stdout: r.stdout };
  }

  async function checkProcess(options: Record<string, unknown>) {
    const argsPath = join(dir, `args-${run + 1}.json`);
    await writeFile(argsPath, JSON.stringify(options));
    return packagesLoadedBy([CLI, "module", "calico_pool_check", argsPath]);
  }

  it("sees Ajv and execa when they are loaded (the tracker works)", async () => {
    const ajv = pathToFileURL(join(REPO, "dist", "src", "protocol", "ajv.js")).href;
    const { packages } = await packagesLoadedBy([
      "--input-type=module",
      "-e",
      `(await import(${JSON.stringify(ajv)})).createAjv(); await import("execa");`,
    ]);
    expect(packages).to.include.members(["ajv", "execa"]);
  });

  it("loads neither execa nor Ajv under the bridge, whose commands the plugin runs", async () => {
    const log = join(dir, `loaded-${++run}.log`);
    const preload = await writeTracker(dir, log);
    const live = live218();
    const answer = scriptAnswerer({
      "calicoctl.sh": calicoctlScript(live),
      kubectl: kubectlScript(live, "/etc/kubernetes/admin.conf"),
    });
    const child = spawn(
      process.execPath,
      ["--import", pathToFileURL(preload).href, CLI, "bridge"],
      {
        cwd: REPO,
        stdio: ["pipe", "pipe", "inherit"],
      },
    );
    let result: Record<string, unknown> | undefined;
    let execs = 0;
    createInterface({ input: child.stdout }).on("line", (line) => {
      const m = JSON.parse(line) as Record<string, unknown>;
      if (m.op === "result") result = m.result as Record<string, unknown>;
      if (m.op !== "exec") return;
      execs++;
      const exec = m as unknown as ExecMessage;
      const a = answer(exec) ?? {};
      child.stdin.write(
        `${JSON.stringify({ op: "exec_result", id: exec.id, rc: a.rc ?? 0, stdout: a.stdout ?? "", stderr: a.stderr ?? "" })}\n`,
      );
    });
    const args = {
      ipip_mode: "Always",
      vxlan_mode: "Never",
      network_backend: "bird",
      pool_blocksize: 24,
    };
    child.stdin.write(`${JSON.stringify({ op: "run", module: "calico_pool_check", args })}\n`);
    const code = await new Promise((resolve) => child.on("exit", resolve));
    expect(code).to.equal(0);
    expect(result?.msg).to.equal("The inventory matches the live Calico configuration.");
    expect(execs).to.equal(1); // the reads in one batch exec
    const packages = await packagesIn(log);
    expect(packages).not.to.include("execa");
    expect(packages).not.to.include("ajv");
  });

  it("loads no package when the options are rejected", async () => {
    const { packages, stdout } = await checkProcess({ pool_blocksize: 19, bogus: 1 });
    expect(stdout).to.include("value of pool_blocksize must be between 20 and 32, got: 19");
    expect(packages).to.deep.equal([]);
  });

  it("loads execa but never Ajv when the check runs its commands", async () => {
    const live = live218();
    const tools = fakeTools(
      calicoctlScript(live),
      kubectlScript(live, "/etc/kubernetes/admin.conf"),
    );
    try {
      const { packages, stdout } = await checkProcess({
        calicoctl_path: tools.calicoctl,
        kubectl_path: tools.kubectl,
        ipip_mode: "Always",
        vxlan_mode: "Never",
        network_backend: "bird",
        pool_blocksize: 24,
      });
      expect(JSON.parse(stdout)).to.include({ changed: false });
      expect(JSON.parse(stdout)).not.to.have.property("failed", true);
      expect(packages).to.include("execa");
      expect(packages).not.to.include("ajv");
      expect(packages).not.to.include("yaml");
    } finally {
      await rm(tools.dir, { recursive: true, force: true });
    }
  });
});
