// The preflight on the lab over SSH with each Kubespray Ansible, on one lab: ansible/playbooks/preflight.yml
// (the role, its argument_specs, the action plugin) blocks Kubespray 2.19's defaults on a cluster Kubespray 2.18
// installed, through the bridge in one round trip to node-1 and in module mode on node-1, and passes the pinned
// inventory. CALICO_ENCAP_ANSIBLE_VENVS lists the venvs (make test-ansible-versions builds them with venv.sh);
// without it, the project's .venv.

import { expect } from "chai";
import { readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { REPO, VENV_BIN } from "../support/ansible.js";
import type { Lab } from "../support/lab.js";
import { labDown, labUp, nodesStatus, waitUntil } from "../support/lab.js";
import { runPlaybook } from "../support/playbook.js";

const VENVS = (process.env.CALICO_ENCAP_ANSIBLE_VENVS ?? dirname(VENV_BIN))
  .split(/\s+/)
  .filter(Boolean);
/** Kubespray 2.19's encapsulation defaults; its block size still fell back to 24. */
const KUBESPRAY_219 = { calico_pool_blocksize: 24 };
const PINNED_218 = {
  calico_ipip_mode: "Always",
  calico_vxlan_mode: "Never",
  calico_network_backend: "bird",
  calico_pool_blocksize: 24,
};
const MODULE_MODE = {
  calico_encap_mode: "module",
  calico_encap_environment: { CALICO_ENCAP_BACKEND: join(REPO, "dist", "src", "cli.js") },
};
const BLOCKED = "spec.ipipMode: cluster has Always, inventory (calico_ipip_mode) says Never";

/** The ansible-core version installed in a venv, from its dist-info folder. */
function coreVersion(venv: string): string {
  for (const python of readdirSync(join(venv, "lib")))
    for (const entry of readdirSync(join(venv, "lib", python, "site-packages"))) {
      const m = /^ansible_core-(.+)\.dist-info$/.exec(entry);
      if (m) return m[1] ?? "";
    }
  return "unknown";
}

describe("the preflight over SSH with each Kubespray Ansible, on one lab", function () {
  this.timeout(600000);
  let lab: Lab;
  let inventory: string;
  before(async () => {
    lab = await labUp("kubespray-2.18");
    inventory = join(lab.state, "inventory.ini");
    await waitUntil("calico-node ready", () => nodesStatus(lab).summary.podsReady === 3);
  });
  after(labDown);

  for (const venv of VENVS) {
    const bin = join(venv, "bin");
    const name = `${basename(venv)} (ansible-core ${coreVersion(venv)})`;
    describe(`ansible ${name}`, () => {
      it("blocks Kubespray 2.19's defaults through the bridge, its reads in one command on node-1", async () => {
        const r = await runPlaybook("preflight", inventory, {
          extraVars: KUBESPRAY_219,
          args: ["-vvv"],
          bin,
        });
        expect(r.exitCode, r.output).to.equal(2);
        expect(r.output).to.include(BLOCKED);
        expect(r.output).to.match(/ansible-playbook \[core 2\.\d+\.\d+\]/);
        const execs = r.output
          .split("\n")
          .filter((l) => l.includes("SSH: EXEC ssh") && l.includes(" get "));
        expect(execs, r.output).to.have.length(1);
        expect(execs[0]).to.include("calicoctl.sh get ippool -o json");
        expect(execs[0]).to.include("get configmap/calico-config daemonset/calico-node");
      });

      it("passes the inventory pinned to the cluster", async () => {
        const r = await runPlaybook("preflight", inventory, { extraVars: PINNED_218, bin });
        expect(r.exitCode, r.output).to.equal(0);
        expect(r.recap["node-1"]).to.include({ failed: 0, unreachable: 0 });
      });

      it("blocks the same in module mode, the module running on node-1", async () => {
        const r = await runPlaybook("preflight", inventory, {
          extraVars: { ...KUBESPRAY_219, ...MODULE_MODE },
          args: ["-vvv"],
          bin,
        });
        expect(r.exitCode, r.output).to.equal(2);
        expect(r.output).to.include(BLOCKED);
        // The module ran on node-1: the controller sent none of its reads.
        const reads = r.output
          .split("\n")
          .filter((l) => l.includes("SSH: EXEC ssh") && l.includes(" get "));
        expect(reads, r.output).to.deep.equal([]);
      });
    });
  }
});
