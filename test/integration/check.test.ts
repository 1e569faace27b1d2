// calico_pool_check against the lab: the real kube-apiserver, etcd, calicoctl and kubectl, through the real
// ansible-playbook.

import { expect } from "chai";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TaskResult } from "../support/ansible.js";
import { runTask } from "../support/ansible.js";
import type { Lab } from "../support/lab.js";
import { checkArgs, labDown, labUp, resourceVersions } from "../support/lab.js";

const PINNED_218 = {
  ipip_mode: "Always",
  vxlan_mode: "Never",
  network_backend: "bird",
  pool_blocksize: 24,
};

function labArgs(lab: Lab, client: "calicoctl" | "kubectl"): Record<string, string> {
  return {
    datastore_client: client,
    ...checkArgs(lab),
  };
}

async function check(
  lab: Lab,
  args: Record<string, unknown>,
  extra: string[] = [],
): Promise<TaskResult> {
  return (await runTask({ calico_pool_check: args }, { args: extra })).result;
}

describe("calico_pool_check on the lab", function () {
  this.timeout(300000);
  after(labDown);

  describe("a cluster as Kubespray 2.18 left it", () => {
    let lab: Lab;
    before(async () => {
      lab = await labUp("kubespray-2.18");
    });

    for (const client of ["calicoctl", "kubectl"] as const) {
      it(`fails with Kubespray's current defaults, naming ipipMode, vxlanMode, blockSize and the backend (${client})`, async () => {
        const r = await check(lab, labArgs(lab, client));
        expect(r.failed).to.equal(true);
        expect(r.msg).to.include(
          "IPPool/default-pool spec.blockSize: cluster has 24, inventory (calico_pool_blocksize) says 26",
        );
        expect(r.msg).to.include(
          "IPPool/default-pool spec.ipipMode: cluster has Always, inventory (calico_ipip_mode) says Never",
        );
        expect(r.msg).to.include(
          "IPPool/default-pool spec.vxlanMode: cluster has Never, inventory (calico_vxlan_mode) says Always",
        );
        expect(r.msg).to.include(
          "ConfigMap kube-system/calico-config data.calico_backend: cluster has bird, inventory (calico_network_backend) says vxlan",
        );
        expect((r.cluster as { client: string }).client).to.equal(client);
      });

      it(`passes with the pinned variables (${client})`, async () => {
        const r = await check(lab, { ...labArgs(lab, client), ...PINNED_218 });
        expect(r.failed, r.msg).to.not.equal(true);
        expect(r.findings).to.deep.equal([]);
        expect(r.pin_vars).to.deep.include({
          calico_ipip_mode: "Always",
          calico_network_backend: "bird",
          calico_pool_blocksize: 24,
        });
      });
    }

    it("reads Felix's explicit ipipEnabled and the Calico version", async () => {
      const r = await check(lab, { ...labArgs(lab, "calicoctl"), ...PINNED_218 });
      const cluster = r.cluster as {
        calico_version: string;
        felix: { ipip: { enabled: boolean; source: string } };
      };
      expect(cluster.calico_version).to.match(/^v3\.\d+\.\d+$/);
      expect(cluster.felix.ipip).to.deep.equal({
        enabled: true,
        source: "FelixConfiguration default ipipEnabled: true",
      });
    });

    it("writes nothing, in normal and in check mode (resourceVersions unchanged)", async () => {
      const before = await resourceVersions(lab);
      await check(lab, { ...labArgs(lab, "calicoctl"), pool_blocksize: 24 });
      await check(lab, { ...labArgs(lab, "kubectl"), pool_blocksize: 24 }, ["--check"]);
      expect(await resourceVersions(lab)).to.deep.equal(before);
    });
  });

  describe("a fresh cluster without Calico", () => {
    let lab: Lab;
    before(async () => {
      lab = await labUp("fresh");
    });
    for (const client of ["calicoctl", "kubectl"] as const)
      it(`passes, saying Calico is not installed yet (${client})`, async () => {
        const r = await check(lab, labArgs(lab, client));
        expect(r.failed, r.msg).to.not.equal(true);
        expect(r.msg).to.match(/^Calico is not installed yet/);
      });
  });

  describe("the etcd datastore", () => {
    let lab: Lab;
    before(async () => {
      lab = await labUp("etcd");
    });
    it("reads the pools from etcd through calicoctl.sh and fails with Kubespray's current defaults", async () => {
      const r = await check(lab, {
        ...labArgs(lab, "calicoctl"),
        datastore: "etcd",
        pool_blocksize: 24,
      });
      expect(r.failed).to.equal(true);
      expect(r.msg).to.include("spec.ipipMode: cluster has Always");
    });
    it("passes with the pinned variables", async () => {
      const r = await check(lab, {
        ...labArgs(lab, "calicoctl"),
        datastore: "etcd",
        ...PINNED_218,
      });
      expect(r.failed, r.msg).to.not.equal(true);
    });
    it("fails a kdd inventory, naming calico_datastore and what calico-config and calico-node use, pinned", async () => {
      const r = await check(lab, { ...labArgs(lab, "calicoctl"), datastore: "kdd", ...PINNED_218 });
      expect(r.failed).to.equal(true);
      const f = (r.findings as { id: string; live: unknown; why: string }[]).find(
        (x) => x.id === "datastore",
      );
      expect(f?.live).to.equal("etcd");
      expect(f?.why).to.include("calico-config data.etcd_endpoints");
      expect(r.msg).to.include("inventory (calico_datastore) says kdd");
      expect(r.pin_vars).to.deep.include({ calico_datastore: "etcd" });
    });
    it("fails a kdd inventory read through a calicoctl.sh set up for kdd (it finds no Calico there)", async () => {
      const dir = mkdtempSync(join(tmpdir(), "calicoctl-kdd-"));
      const kdd = join(dir, "calicoctl.sh");
      writeFileSync(
        kdd,
        `#!/bin/bash\nDATASTORE_TYPE=kubernetes KUBECONFIG=${lab.kubeconfig} ${join(dirname(lab.calicoctlSh), "calicoctl")} --allow-version-mismatch "$@"\n`,
      );
      chmodSync(kdd, 0o755);
      const r = await check(lab, {
        ...labArgs(lab, "calicoctl"),
        calicoctl_path: kdd,
        datastore: "kdd",
        ...PINNED_218,
      });
      expect(r.failed, r.msg).to.equal(true);
      expect(r.msg).to.include("calico-node is deployed, but calicoctl found no Calico objects");
      expect(r.pin_vars).to.deep.equal({ calico_datastore: "etcd" });
    });
    it("refuses kubectl for an etcd datastore, saying what to set", async () => {
      const r = await check(lab, { ...labArgs(lab, "kubectl"), datastore: "etcd", ...PINNED_218 });
      expect(r.failed).to.equal(true);
      expect(r.msg).to.include("Set datastore_client: calicoctl");
    });
  });
});
