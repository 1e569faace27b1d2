// The calico_encap role through its playbooks (ansible/playbooks/preflight.yml and migrate.yml), run by the real
// ansible-playbook against the lab's control-plane node over SSH with the lab's inventory, as a Kubespray
// inventory would be: only bin_dir and kube_config_dir set, every Calico variable at Kubespray's default unless a
// test sets it. One lab, seeded as Kubespray 2.18 left a cluster, serves every test in order; the last ones migrate
// it. Through the action plugins (bridge mode) when they are there; without them the modules run in module mode
// with this checkout's backend.

import { expect } from "chai";
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { REPO } from "../support/ansible.js";
import type { Lab } from "../support/lab.js";
import {
  calicoctl,
  hasVxlanDevice,
  kubectl,
  labDown,
  labUp,
  resourceVersions,
  nodesStatus,
  waitUntil,
} from "../support/lab.js";
import type { PlaybookRun } from "../support/playbook.js";
import { runPlaybook } from "../support/playbook.js";

/** The 2.18 cluster's values, as a Kubespray inventory pins them (group_vars/k8s_cluster/k8s-net-calico.yml). */
const PINNED_218 = {
  calico_ipip_mode: "Always",
  calico_vxlan_mode: "Never",
  calico_network_backend: "bird",
  calico_pool_blocksize: 24,
};

const FIELDS = [
  "IPPool/default-pool spec.blockSize: cluster has 24, inventory (calico_pool_blocksize) says 26",
  "IPPool/default-pool spec.ipipMode: cluster has Always, inventory (calico_ipip_mode) says Never",
  "IPPool/default-pool spec.vxlanMode: cluster has Never, inventory (calico_vxlan_mode) says Always",
  "ConfigMap kube-system/calico-config data.calico_backend: cluster has bird, inventory (calico_network_backend) says vxlan",
];

/** A Kubespray-style inventory directory: the lab's hosts plus group_vars/k8s_cluster/k8s-net-calico.yml. */
function inventoryWith(lab: Lab, vars: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-inventory-"));
  copyFileSync(join(lab.state, "inventory.ini"), join(dir, "hosts.ini"));
  mkdirSync(join(dir, "group_vars", "k8s_cluster"), { recursive: true });
  writeFileSync(join(dir, "group_vars", "k8s_cluster", "k8s-net-calico.yml"), stringify(vars));
  return join(dir, "hosts.ini");
}

function warnings(run: PlaybookRun): string[] {
  return run.output.split("\n").filter((l) => l.startsWith("[WARNING]: "));
}

describe("the calico_encap role's playbooks on a Kubespray 2.18 lab over SSH", function () {
  this.timeout(600000);
  let lab: Lab;
  let inventory: string;
  before(async () => {
    lab = await labUp("kubespray-2.18");
    inventory = join(lab.state, "inventory.ini");
    await waitUntil("calico-node ready with BIRD on every node", () => {
      const s = nodesStatus(lab).summary;
      return s.podsReady === 3 && s.birdRunning === 3;
    });
  });
  after(labDown);

  it("preflight.yml with Kubespray's current defaults fails, naming every field, and changes nothing", async () => {
    const before = await resourceVersions(lab);
    const run = await runPlaybook("preflight", inventory);
    expect(run.exitCode, run.output).to.equal(2);
    expect(run.recap["node-1"]).to.include({ failed: 1, changed: 0 });
    for (const field of FIELDS) expect(run.output).to.include(field);
    expect(run.output).to.include("calico_ipip_mode: Always");
    expect(await resourceVersions(lab)).to.deep.equal(before);
  });

  it("preflight.yml with ignore_assert_errors=true prints the findings as warnings and the play goes on", async () => {
    const run = await runPlaybook("preflight", inventory, {
      extraVars: { ignore_assert_errors: true },
    });
    expect(run.exitCode, run.output).to.equal(0);
    expect(run.recap["node-1"]).to.include({ failed: 0, changed: 0 });
    const w = warnings(run);
    for (const field of FIELDS) expect(w.some((l) => l.includes(field))).to.equal(true, field);
  });

  it("preflight.yml passes with the 2.18 values pinned in the inventory's group_vars", async () => {
    const run = await runPlaybook("preflight", inventoryWith(lab, PINNED_218));
    expect(run.exitCode, run.output).to.equal(0);
    // ok: the argument validation, reading the fork's defaults (from the tree the lab's inventory names,
    // calico_encap_kubespray_tree), the check that it answered, the comparison.
    expect(run.recap["node-1"]).to.include({ ok: 4, skipped: 0, failed: 0, changed: 0 });
    expect(warnings(run)).to.deep.equal([]);
  });

  it("preflight.yml in module mode (calico_encap_mode: module) runs the backend installed on the target", async () => {
    const run = await runPlaybook("preflight", inventoryWith(lab, PINNED_218), {
      extraVars: {
        calico_encap_mode: "module",
        calico_encap_environment: { CALICO_ENCAP_BACKEND: join(REPO, "dist", "src", "cli.js") },
      },
    });
    expect(run.exitCode, run.output).to.equal(0);
    expect(run.recap["node-1"]).to.include({ ok: 4, skipped: 0, failed: 0, changed: 0 });
    const broken = await runPlaybook("preflight", inventoryWith(lab, PINNED_218), {
      extraVars: {
        calico_encap_mode: "module",
        calico_encap_environment: { CALICO_ENCAP_BACKEND: "/nonexistent/cli.js" },
      },
    });
    expect(broken.exitCode, broken.output).to.equal(2);
    expect(broken.output).to.include("CALICO_ENCAP_BACKEND=/nonexistent/cli.js");
  });

  for (const playbook of ["preflight", "migrate"])
    it(`${playbook}.yml rejects calico_ipip_mode: Sometimes in Ansible's wording before any module runs`, async () => {
      const before = await resourceVersions(lab);
      const run = await runPlaybook(playbook, inventory, {
        extraVars: { calico_ipip_mode: "Sometimes" },
      });
      expect(run.exitCode, run.output).to.equal(2);
      expect(run.output).to.include(
        "Validation of arguments failed:\nvalue of calico_ipip_mode must be one of: Always, CrossSubnet, Never, got: Sometimes",
      );
      expect(run.output).to.include(`Validating arguments against arg spec '${playbook}'`);
      if (playbook === "preflight") expect(run.recap["node-1"]).to.include({ ok: 0, failed: 1 });
      // migrate.yml reads each host's routing rules for a fallback an earlier run left, before and after the
      // migration (its BIRD-path fallback, the default), whatever happened: those reads are its ok tasks; no module
      // ran and nothing changed.
      else {
        expect(run.recap["node-1"]).to.include({ changed: 0 });
        expect(run.recap["node-1"]?.failed).to.be.above(0);
        expect(run.output, "the module task ran nowhere").not.to.match(
          /TASK \[calico_encap : Move the live cluster[^\n]*\n(ok|changed|fatal)/,
        );
      }
      expect(await resourceVersions(lab)).to.deep.equal(before);
    });

  it("migrate.yml --check with Kubespray's current defaults reports the plan and writes nothing", async () => {
    const before = await resourceVersions(lab);
    const run = await runPlaybook("migrate", inventory, { args: ["--check"] });
    expect(run.exitCode, run.output).to.equal(0);
    expect(run.recap["node-1"]).to.include({ changed: 1, failed: 0 });
    expect(run.output).to.match(/"msg": "Would run 4 step\(s\): /);
    expect(await resourceVersions(lab)).to.deep.equal(before);
  });

  it("migrate.yml with Kubespray's current defaults moves the cluster to VXLAN; a second run reports changed=0", async () => {
    const run = await runPlaybook("migrate", inventory, {
      extraVars: { calico_encap_wait_sleep: 1, calico_encap_wait_timeout: 120 },
    });
    expect(run.exitCode, run.output).to.equal(0);
    expect(run.recap["node-1"]).to.include({ changed: 1, failed: 0 });
    expect(run.output).to.match(/"msg": "Migrated in 4 step\(s\): /);

    const pool = JSON.parse(
      await calicoctl(lab, "get", "ippool", "default-pool", "-o", "json"),
    ) as {
      spec: { ipipMode?: string; vxlanMode?: string };
    };
    expect(pool.spec).to.include({ ipipMode: "Never", vxlanMode: "Always" });
    expect(
      await kubectl(
        lab,
        "-n",
        "kube-system",
        "get",
        "configmap/calico-config",
        "-o",
        "jsonpath={.data.calico_backend}",
      ),
    ).to.equal("vxlan");
    for (const node of ["node-1", "node-2", "node-3"])
      expect(await hasVxlanDevice(node), `vxlan.calico on ${node}`).to.equal(true);

    const again = await runPlaybook("migrate", inventory);
    expect(again.exitCode, again.output).to.equal(0);
    expect(again.recap["node-1"]).to.include({ changed: 0, failed: 0 });
    expect(again.output).to.include('"msg": "The cluster already matches the target."');
  });

  it("after the migration preflight.yml passes with Kubespray 2.19's defaults (the block size still 24)", async () => {
    const run = await runPlaybook("preflight", inventory, {
      extraVars: { calico_pool_blocksize: 24 },
    });
    expect(run.exitCode, run.output).to.equal(0);
    expect(run.recap["node-1"]).to.include({ ok: 4, skipped: 0, failed: 0, changed: 0 });
    expect(warnings(run)).to.deep.equal([]);
  });
});
