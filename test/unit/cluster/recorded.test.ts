// Parsing what the lab's real calicoctl and kubectl printed, for every seed profile, and the check's answer.

import { expect } from "chai";
import { checkPools } from "../../../src/calico/check.js";
import type { Live } from "../../../src/calico/model.js";
import { observe } from "../../../src/cluster/observe.js";
import { LocalRunner } from "../../../src/cluster/runner.js";
import { inventory, PINNED_218 } from "../../support/builders.js";
import { recordedTools } from "../../support/recorded.js";

const KUBECONFIG = "/etc/kubernetes/admin.conf";

async function read(
  profile: string,
  client: "calicoctl" | "kubectl",
  datastore: "kdd" | "etcd" = "kdd",
): Promise<Live> {
  const t = recordedTools(profile, KUBECONFIG);
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

  it("kubespray-2.18: IPIP Always, blockSize 24, backend bird, Felix ipipEnabled explicit", async () => {
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
    expect(live.felixDefault).to.deep.equal({ ipipEnabled: true });
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

  it("pre-3.23 reads the version and Felix's explicit flags", async () => {
    const live = await read("pre-3.23", "calicoctl");
    expect(live.calicoVersion).to.equal("v3.22.5");
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
});
