// calico-encap check|migrate, the human front, run as a person runs it (the built CLI as a child
// process) against the lab: the real kube-apiserver, calicoctl, kubectl and the real calico-node under the lab
// kubelet (which needs the lab's data plane: its namespaces).

import { expect } from "chai";
import type { Result } from "execa";
import { execa } from "execa";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO } from "../support/ansible.js";
import type { Lab } from "../support/lab.js";
import { labDown, labUp, resourceVersions, nodesStatus, waitUntil } from "../support/lab.js";

const CLI = join(REPO, "dist", "src", "cli.js");
const ESC = String.fromCharCode(27);
const TO_VXLAN = ["--ipip-mode", "Never", "--vxlan-mode", "Always", "--network-backend", "vxlan"];
const TO_IPIP = ["--ipip-mode", "Always", "--vxlan-mode", "Never", "--network-backend", "bird"];
/** Kubespray 2.19's defaults for a cluster whose pool kept blockSize 24 (#9382), as group_vars. */
const GROUP_VARS_219 = `---
calico_ipip_mode: Never
calico_vxlan_mode: Always
calico_network_backend: vxlan
calico_pool_blocksize: 24
nat_outgoing: yes
calico_cni_name: k8s-pod-network
`;

function labFlags(lab: Lab): string[] {
  return ["--calicoctl", lab.calicoctlSh, "--kubectl", lab.kubectl, "--kubeconfig", lab.kubeconfig];
}

const WAITS = ["--wait-sleep", "1", "--wait-timeout", "120"];

async function cli(...args: string[]): Promise<Result> {
  return execa("node", [CLI, ...args], {
    reject: false,
    stripFinalNewline: false,
    env: { NO_COLOR: "" },
  });
}

describe("calico-encap check|migrate on the lab (the human front)", function () {
  this.timeout(600000);
  let lab: Lab;
  let dir: string;

  before(async () => {
    lab = await labUp("kubespray-2.18");
    await waitUntil("calico-node ready with BIRD", () => {
      const s = nodesStatus(lab).summary;
      return s.podsReady === 3 && s.birdRunning === 3;
    });
    dir = mkdtempSync(join(tmpdir(), "calico-encap-human-"));
  });
  after(async () => {
    await labDown();
    rmSync(dir, { recursive: true, force: true });
  });

  it("check with Kubespray's current defaults is blocked: exit 1, the findings shown, nothing written", async () => {
    const before = await resourceVersions(lab);
    const r = await cli("check", ...labFlags(lab));
    expect(r.exitCode, String(r.stderr)).to.equal(1);
    const out = String(r.stdout);
    expect(out).to.match(/^calico-encap check: Calico v[\d.]+ read with calicoctl, backend bird\n/);
    expect(out).to.include("BLOCKED: 4 blocking findings");
    for (const line of [
      "IPPool/default-pool spec.blockSize: cluster has 24, inventory (calico_pool_blocksize) says 26",
      "IPPool/default-pool spec.ipipMode: cluster has Always, inventory (calico_ipip_mode) says Never",
      "IPPool/default-pool spec.vxlanMode: cluster has Never, inventory (calico_vxlan_mode) says Always",
      "ConfigMap kube-system/calico-config data.calico_backend: cluster has bird, inventory (calico_network_backend) says vxlan",
    ])
      expect(out).to.include(`\n- ${line}. `); // each finding goes on with why it matters
    expect(out).to.include(
      `  calico-encap migrate --network-backend vxlan --pool-name default-pool --ipip-mode Never --vxlan-mode Always ${labFlags(lab).join(" ")}\n`,
    );
    expect(out).to.not.include("\x1b[");
    expect(await resourceVersions(lab)).to.deep.equal(before);
  });

  it("check --json prints only the module's result, which parses", async () => {
    const r = await cli("check", ...labFlags(lab), "--json");
    expect(r.exitCode).to.equal(1);
    const lines = String(r.stdout).split("\n");
    expect(lines).to.have.length(2);
    const result = JSON.parse(lines[0] ?? "") as { failed: boolean; findings: { id: string }[] };
    expect(result.failed).to.equal(true);
    expect(result.findings.map((f) => f.id).sort()).to.deep.equal([
      "backend",
      // Warnings: Kubespray's next run would flip both explicit flags v2.18.2 wrote (ipipEnabled true -> false,
      // vxlanEnabled false -> true), restarting Felix.
      "felix.ipipEnabled",
      "felix.vxlanEnabled",
      "pool.blockSize",
      "pool.ipipMode",
      "pool.vxlanMode",
    ]);
  });

  it("migrate --check --diff prints the plan and the fields it would write, and writes nothing", async () => {
    const before = await resourceVersions(lab);
    const r = await cli("migrate", ...labFlags(lab), ...TO_VXLAN, "--check", "--diff");
    expect(r.exitCode, String(r.stderr)).to.equal(0);
    const out = String(r.stdout);
    expect(out).to.include("Plan, 4 steps:\n");
    expect(out).to.include("  IPPool/default-pool\n    ipipMode: Always -> Never\n");
    expect(out).to.include("--check: nothing was written.");
    expect(await resourceVersions(lab)).to.deep.equal(before);
  });

  it("migrate moves the cluster to VXLAN, showing the plan, progress, steps and the MTU warning", async () => {
    const r = await cli("migrate", ...labFlags(lab), ...TO_VXLAN, ...WAITS);
    const out = String(r.stdout);
    expect(r.exitCode, `${out}\n${String(r.stderr)}`).to.equal(0);
    expect(out).to.match(
      /^calico-encap migrate: from default-pool ipipMode Always, vxlanMode Never; backend bird\n/,
    );
    expect(out).to.include("Plan, 4 steps:\n");
    expect(out).to.match(/Migrated in 4 steps \([\d.]+ s\):\n( +\d\. +[\d.]+ s {2}\S.*\n){4}/);
    expect(out).to.include("Now: default-pool ipipMode Never, vxlanMode Always; backend vxlan\n");
    expect(out).to.match(/warning: .*MTU/);
    // Not a TTY: one progress line per update of the module, each with the seconds elapsed.
    const progress = String(r.stderr)
      .split("\n")
      .filter((l) => /^ +\d+ s {2}\S/.test(l));
    expect(progress.length, String(r.stderr)).to.be.at.least(8);
    expect(String(r.stderr)).to.not.include("\r");
    console.log(`      progress lines: ${progress.length}; last: ${progress.at(-1)?.trim()}`);
  });

  it("check with Kubespray 2.19's variables from a --vars group_vars file now passes", async () => {
    const vars = join(dir, "k8s-net-calico.yml");
    writeFileSync(vars, GROUP_VARS_219);
    const r = await cli("check", ...labFlags(lab), "--vars", vars);
    expect(r.exitCode, String(r.stdout)).to.equal(0);
    expect(String(r.stdout)).to.include(
      "PASSED\nThe inventory matches the live Calico configuration.\n",
    );
  });

  it("a second migrate says no change: exit 0, nothing written", async () => {
    const before = await resourceVersions(lab);
    const r = await cli("migrate", ...labFlags(lab), ...TO_VXLAN, ...WAITS);
    expect(r.exitCode, String(r.stdout)).to.equal(0);
    expect(String(r.stdout)).to.equal(
      "No change: the cluster already matches the target.\nNow: default-pool ipipMode Never, vxlanMode Always; backend vxlan\n",
    );
    expect(await resourceVersions(lab)).to.deep.equal(before);
  });

  it("on a TTY the progress is one line rewritten in place (back to IPIP)", async () => {
    const command = ["node", CLI, "migrate", ...labFlags(lab), ...TO_IPIP, ...WAITS].join(" ");
    const r = await execa("script", ["-qec", command, "/dev/null"], {
      reject: false,
      env: { COLUMNS: "100", NO_COLOR: "1" },
    });
    const out = String(r.stdout);
    expect(r.exitCode, out).to.equal(0);
    const redraws = out.split("\r\x1b[2K").length - 1;
    expect(redraws).to.be.at.least(8);
    // Towards BIRD: every node at once, backend, Felix IPIP, pool, Felix VXLAN off, maxUnavailable back.
    expect(out).to.include("Migrated in 6 steps");
    expect(out, "NO_COLOR is honoured on a TTY").to.not.match(new RegExp(`${ESC}\\[\\d+m`));
    for (const drawn of out.split("\r\x1b[2K").slice(1, -1))
      expect(drawn.length, drawn).to.be.below(100);
  });

  it("a bad value is a usage error: exit 2, the flag named, nothing run", async () => {
    const r = await cli("migrate", ...labFlags(lab), "--vxlan-mode", "always");
    expect(r.exitCode).to.equal(2);
    expect(String(r.stderr)).to.equal(
      "calico-encap migrate: --vxlan-mode: value of vxlan_mode must be one of: Always, CrossSubnet, Never, got: always\nTry 'calico-encap migrate --help'.\n",
    );
  });
});
