// Parsing what the lab's real calicoctl and kubectl printed, for every seed profile, and the check's answer.

import { expect } from "chai";
import { checkPools } from "../../../src/calico/check/check.js";
import type { Live } from "../../../src/calico/shared/model.js";
import { observe } from "../../../src/cluster/observe.js";
import { LocalRunner } from "../../../src/cluster/runner.js";
import { inventory, PINNED_218 } from "../../support/builders.js";
import { recordedTools } from "../../support/recorded.js";

const KUBECONFIG = "/etc/kubernetes/admin.conf";

async function read(
  profile: string,
  client: "auto" | "calicoctl" | "kubectl",
  datastore: "kdd" | "etcd" = "kdd",
  calicoctlProfile = profile,
): Promise<Live> {
  const t = recordedTools(profile, KUBECONFIG, calicoctlProfile);
  return observe(new LocalRunner(), {
    client,
    datastore,
    calicoctlPath: t.calicoctl,
    kubectlPath: t.kubectl,
    kubeconfig: KUBECONFIG,
    timeoutSeconds: 10,
  });
}

function essentials(live: Live): unknown {
  const {
    pools,
    felixDefault,
    felixNodes,
    calicoVersion,
    configMapBackend,
    nodeEnv,
    calicoInstalled,
  } = live;
  return {
    pools,
    felixDefault,
    felixNodes,
    calicoVersion,
    configMapBackend,
    nodeEnv,
    calicoInstalled,
  };
}

describe("recorded lab output", () => {
  for (const profile of [
    "kubespray-2.18",
    "kubespray-2.19",
    "crosssubnet",
    "dualstack",
    "pre-3.23",
  ])
    it(`${profile}: calicoctl and kubectl give the same cluster`, async () => {
      const viaCalicoctl = await read(profile, "calicoctl");
      const viaKubectl = await read(profile, "kubectl");
      expect(viaCalicoctl.calicoInstalled).to.equal(true);
      expect(essentials(viaKubectl)).to.deep.equal(essentials(viaCalicoctl));
    });

  it("kubespray-2.18 (Kubespray v2.18.2's install): IPIP Always, blockSize 24, backend bird, both Felix flags explicit", async () => {
    const live = await read("kubespray-2.18", "calicoctl");
    expect(live.pools).to.have.length(1);
    expect(live.pools[0]).to.deep.include({
      name: "default-pool",
      cidr: "10.233.64.0/18",
      blockSize: 24,
      ipipMode: "Always",
      vxlanMode: "Never",
      natOutgoing: true,
    });
    expect(live.felixDefault).to.deep.equal({ ipipEnabled: true, vxlanEnabled: false });
    expect(live.configMapBackend).to.equal("bird");
    expect(live.nodeEnv?.backendFromConfigMap).to.equal(true);
    expect(checkPools(inventory(PINNED_218), live).failed).to.equal(false);
    const upgrade = checkPools(inventory(), live);
    expect(
      upgrade.findings.filter((f) => f.severity === "blocking").map((f) => f.id),
    ).to.deep.equal(["pool.blockSize", "pool.ipipMode", "pool.vxlanMode", "backend"]);
  });

  it("kubespray-2.19 passes with Kubespray's current defaults", async () => {
    const live = await read("kubespray-2.19", "kubectl");
    const r = checkPools(inventory(), live);
    expect(r.failed, r.msg).to.equal(false);
    expect(r.cluster.felix.vxlan).to.deep.equal({
      enabled: true,
      source: "unset, derived from the pools (Calico >= 3.23): true",
    });
  });

  it("dualstack passes with ipv6_stack and compares the IPv6 pool", async () => {
    const live = await read("dualstack", "calicoctl");
    expect(checkPools(inventory({ ipv6_stack: true }), live).failed).to.equal(false);
    const r = checkPools(inventory({ ipv6_stack: true, vxlan_mode_ipv6: "Never" }), live);
    expect(r.findings.map((f) => `${f.id} ${f.object}`)).to.include(
      "pool.vxlanMode IPPool/default-pool-ipv6",
    );
  });

  it("crosssubnet is told apart from Always", async () => {
    const r = checkPools(inventory(PINNED_218), await read("crosssubnet", "calicoctl"));
    expect(r.findings.find((f) => f.id === "pool.ipipMode")).to.deep.include({
      live: "CrossSubnet",
      inventory: "Always",
    });
  });

  it("pre-3.23 (recorded on the real calico-node v3.22.0) reads the version and Felix's explicit flags", async () => {
    const live = await read("pre-3.23", "calicoctl");
    expect(live.calicoVersion).to.equal("v3.22.0");
    expect(live.felixDefault).to.deep.equal({ ipipEnabled: true, vxlanEnabled: false });
    expect(checkPools(inventory(PINNED_218), live).failed).to.equal(false);
  });

  it("fresh: no Calico, through either client", async () => {
    for (const client of ["calicoctl", "kubectl"] as const) {
      const live = await read("fresh", client);
      expect(live.calicoInstalled, client).to.equal(false);
    }
    expect((await read("fresh", "kubectl")).reason).to.equal("the Calico CRDs are not installed");
  });

  it("etcd: calicoctl reads the pools; the Kubernetes API has no Calico CRDs", async () => {
    const live = await read("etcd", "calicoctl", "etcd");
    expect(live.pools[0]?.ipipMode).to.equal("Always");
    expect(live.configMapBackend).to.equal("bird");
    expect((await read("etcd", "kubectl")).calicoInstalled).to.equal(false);
  });

  describe("calico_datastore against the datastore the cluster uses", () => {
    function datastoreFinding(r: ReturnType<typeof checkPools>) {
      return r.findings.find((f) => f.id === "datastore");
    }

    it("kdd inventory on the etcd cluster: blocking, names calico_datastore and what the cluster uses, pinned", async () => {
      const live = await read("etcd", "calicoctl");
      const r = checkPools(inventory(PINNED_218), live);
      const f = datastoreFinding(r);
      expect(f).to.deep.include({
        severity: "blocking",
        variable: "calico_datastore",
        live: "etcd",
        inventory: "kdd",
      });
      expect(f?.why).to.include("calico-config data.etcd_endpoints: http://127.0.0.1:");
      expect(f?.why).to.include(
        "calico-node template ETCD_ENDPOINTS from calico-config etcd_endpoints",
      );
      expect(f?.remedy).to.include("calico_datastore: etcd");
      expect(r.failed).to.equal(true);
      expect(r.msg).to.include("inventory (calico_datastore) says kdd");
      expect(r.pin_vars).to.deep.include({ calico_datastore: "etcd" });
      expect(r.migration.possible).to.equal(false);
      const pinned = checkPools(inventory({ ...PINNED_218, datastore: "etcd" }), live);
      expect(pinned.failed, pinned.msg).to.equal(false);
      expect(pinned.pin_vars).to.deep.include({ calico_datastore: "etcd" });
    });

    it("etcd inventory on a KDD cluster: blocking, says DATASTORE_TYPE=kubernetes, pinned", async () => {
      const live = await read("kubespray-2.18", "calicoctl", "etcd");
      const r = checkPools(inventory({ ...PINNED_218, datastore: "etcd" }), live);
      const f = datastoreFinding(r);
      expect(f).to.deep.include({ severity: "blocking", live: "kdd", inventory: "etcd" });
      expect(f?.why).to.include("calico-node template DATASTORE_TYPE=kubernetes");
      expect(r.pin_vars).to.deep.include({ calico_datastore: "kdd" });
      expect(r.failed).to.equal(true);
      expect(checkPools(inventory(PINNED_218), live).pin_vars).to.not.have.property(
        "calico_datastore",
      );
    });

    it("the etcd cluster read through a calicoctl.sh set up for an empty datastore: still blocking", async () => {
      const live = await read("etcd", "auto", "kdd", "fresh");
      expect(live.calicoInstalled).to.equal(false);
      const r = checkPools(inventory(PINNED_218), live);
      expect(datastoreFinding(r)).to.deep.include({ severity: "blocking", live: "etcd" });
      expect(r.failed).to.equal(true);
      expect(r.msg).to.include("calico-node is deployed, but calicoctl found no Calico objects");
      expect(r.pin_vars).to.deep.equal({ calico_datastore: "etcd" });
    });

    it("the KDD cluster read through a calicoctl.sh set up for an empty etcd: blocking", async () => {
      const live = await read("kubespray-2.18", "calicoctl", "etcd", "fresh");
      const r = checkPools(inventory({ ...PINNED_218, datastore: "etcd" }), live);
      expect(datastoreFinding(r)).to.deep.include({ live: "kdd", inventory: "etcd" });
      expect(r.failed).to.equal(true);
      // The same datastore but nothing read: calico-node runs, so this is not a fresh cluster either.
      const same = checkPools(inventory(PINNED_218), live);
      expect(same.findings.map((x) => x.id)).to.deep.equal(["datastore.unread"]);
      expect(same.failed).to.equal(true);
    });

    it("a fresh cluster (no calico-node) still passes", async () => {
      const r = checkPools(inventory(), await read("fresh", "auto"));
      expect(r.failed, r.msg).to.equal(false);
    });
  });

  describe("ipv4_stack / ipv6_stack against the dual-stack cluster", () => {
    it("ipv6_stack: false is blocking, names ipv6_stack and what shows IPv6, pins ipv6_stack: true", async () => {
      const live = await read("dualstack", "calicoctl");
      const r = checkPools(inventory({ ipv6_stack: false }), live);
      const f = r.findings.find((x) => x.id === "stack.ipv6");
      expect(f).to.deep.include({
        severity: "blocking",
        variable: "ipv6_stack",
        live: true,
        inventory: false,
      });
      expect(f?.why).to.include("IPPool/default-pool-ipv6 fd85:ee78:d8a6:8607::1:0/112");
      expect(f?.why).to.include("FELIX_IPV6SUPPORT=true");
      expect(f?.why).to.include("IP6=autodetect");
      expect(r.failed).to.equal(true);
      expect(r.msg).to.include(
        "Pod network IPv6: cluster has true, inventory (ipv6_stack) says false",
      );
      expect(r.pin_vars).to.deep.include({ ipv6_stack: true, calico_vxlan_mode_ipv6: "Always" });
    });

    it("ipv4_stack: false on a cluster with an IPv4 pool is blocking and pins ipv4_stack: true", async () => {
      const live = await read("dualstack", "calicoctl");
      const r = checkPools(inventory({ ipv4_stack: false, ipv6_stack: true }), live);
      const f = r.findings.find((x) => x.id === "stack.ipv4");
      expect(f).to.deep.include({ severity: "blocking", variable: "ipv4_stack" });
      expect(f?.why).to.include("IPPool/default-pool 10.233.64.0/18");
      expect(r.failed).to.equal(true);
      expect(r.pin_vars).to.deep.include({ ipv4_stack: true });
    });
  });
});
