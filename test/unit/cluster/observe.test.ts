import { expect } from "chai";
import { readFileSync } from "node:fs";
import type { ObserveOptions } from "../../../src/cluster/observe.js";
import { observe } from "../../../src/cluster/observe.js";
import { LocalRunner } from "../../../src/cluster/runner.js";
import { calicoctlScript, kubectlScript } from "../../support/calico-json.js";
import type { Script } from "../../support/fake-commands.js";
import { calicoctlAnswer, fakeTools, KUBECTL_CALICO_CRDS } from "../../support/fake-commands.js";
import { live218, pool } from "../../support/builders.js";
import { rejection } from "../../support/rejection.js";

const KUBECONFIG = "/etc/kubernetes/admin.conf";

function options(
  tools: { calicoctl: string; kubectl: string },
  over: Partial<ObserveOptions> = {},
): ObserveOptions {
  return {
    client: "auto",
    datastore: "kdd",
    calicoctlPath: tools.calicoctl,
    kubectlPath: tools.kubectl,
    kubeconfig: KUBECONFIG,
    timeoutSeconds: 10,
    ...over,
  };
}

function calls(log: string): string[] {
  return readFileSync(log, "utf8").trim().split("\n").filter(Boolean);
}

describe("observing the cluster", () => {
  const cluster = live218({
    felixNodes: { "node-2": { vxlanEnabled: true } },
    nodeEnv: { backendFromConfigMap: true, ipipEnabled: "true" },
  });

  it("reads pools, Felix, the version, calico-config and calico-node env through calicoctl", async () => {
    const tools = fakeTools(calicoctlScript(cluster), kubectlScript(cluster, KUBECONFIG));
    const live = await observe(new LocalRunner(), options(tools));
    expect(live).to.deep.include({
      calicoInstalled: true,
      client: "calicoctl",
      calicoVersion: "v3.32.1",
      configMapBackend: "bird",
    });
    expect(live.pools).to.deep.equal(cluster.pools);
    expect(live.felixDefault).to.deep.equal({ ipipEnabled: true, vxlanEnabled: false });
    expect(live.felixNodes).to.deep.equal({ "node-2": { vxlanEnabled: true } });
    expect(live.nodeEnv).to.deep.equal({ backendFromConfigMap: true, ipipEnabled: "true" });
    // One calicoctl for the three kinds, one kubectl for calico-config and calico-node.
    expect(calls(tools.log)).to.have.length(2);
  });

  it("reads the same through kubectl in two processes", async () => {
    const tools = fakeTools({}, kubectlScript(cluster, KUBECONFIG));
    const live = await observe(new LocalRunner(), options(tools, { client: "kubectl" }));
    expect(live.client).to.equal("kubectl");
    expect(live.pools).to.deep.equal(cluster.pools);
    expect(live.felixNodes).to.deep.equal({ "node-2": { vxlanEnabled: true } });
    expect(calls(tools.log)).to.have.length(2);
  });

  it("falls back to kubectl when calicoctl is not installed (auto)", async () => {
    const tools = fakeTools({}, kubectlScript(cluster, KUBECONFIG));
    const live = await observe(
      new LocalRunner(),
      options(tools, { calicoctlPath: "/nonexistent/calicoctl.sh" }),
    );
    expect(live.client).to.equal("kubectl");
    expect(live.calicoInstalled).to.equal(true);
  });

  it("reads the legacy v1 ipip and nat-outgoing fields kubectl may show", async () => {
    const legacy = {
      kind: "List",
      apiVersion: "v1",
      items: [
        {
          kind: "IPPool",
          apiVersion: "crd.projectcalico.org/v1",
          metadata: { name: "default-pool" },
          spec: {
            cidr: "10.233.64.0/18",
            ipip: { enabled: true, mode: "cross-subnet" },
            "nat-outgoing": true,
          },
        },
      ],
    };
    const tools = fakeTools(
      {},
      {
        [`--kubeconfig ${KUBECONFIG} ${KUBECTL_CALICO_CRDS}`]: { stdout: JSON.stringify(legacy) },
        "*": { stdout: "" },
      },
    );
    const live = await observe(new LocalRunner(), options(tools, { client: "kubectl" }));
    expect(live.pools[0]).to.deep.include({
      ipipMode: "CrossSubnet",
      vxlanMode: "Never",
      natOutgoing: true,
      blockSize: 26,
    });
    expect(live.configMapBackend).to.equal(null);
  });

  describe("a cluster without Calico", () => {
    it("no CRDs (kubectl)", async () => {
      const tools = fakeTools(
        {},
        { "*": { rc: 1, stderr: 'error: the server doesn\'t have a resource type "ippools"' } },
      );
      const live = await observe(new LocalRunner(), options(tools, { client: "kubectl" }));
      expect(live).to.deep.include({
        calicoInstalled: false,
        reason: "the Calico CRDs are not installed",
      });
    });
    it("no pool (calicoctl prints an empty list)", async () => {
      const tools = fakeTools(calicoctlScript(live218({ pools: [] })), {});
      const live = await observe(new LocalRunner(), options(tools));
      expect(live).to.deep.include({
        calicoInstalled: false,
        reason: "the datastore has no IPPool",
      });
    });
    it("neither calicoctl nor kubectl", async () => {
      const live = await observe(
        new LocalRunner(),
        options({ calicoctl: "/nonexistent/calicoctl.sh", kubectl: "/nonexistent/kubectl" }),
      );
      expect(live.calicoInstalled).to.equal(false);
      expect(live.reason).to.equal(
        "/nonexistent/calicoctl.sh is not installed and /nonexistent/kubectl is not installed (no control plane yet)",
      );
    });
  });

  describe("output that is not what calicoctl or kubectl prints", () => {
    const lists = (...values: unknown[]): Script =>
      calicoctlAnswer({ stdout: JSON.stringify(values) });
    const cases: [string, Script, RegExp][] = [
      [
        "garbage",
        calicoctlAnswer({ stdout: "<html>proxy error</html>" }),
        /calicoctl\.sh get -f - -o json '\(IPPool, FelixConfiguration, ClusterInformation on stdin\)': printed <html>proxy error<\/html>; expected a JSON array of IPPoolList, FelixConfigurationList, ClusterInformationList/,
      ],
      [
        "empty output",
        calicoctlAnswer({ stdout: "" }),
        /printed \(empty\); expected a JSON array of IPPoolList/,
      ],
      [
        "one list where the three were expected",
        calicoctlAnswer({ stdout: JSON.stringify({ kind: "IPPoolList", items: [] }) }),
        /expected a JSON array of IPPoolList, FelixConfigurationList, ClusterInformationList/,
      ],
      [
        "a list of another kind in a list's place",
        lists(
          { kind: "IPPoolList", items: [] },
          { kind: "FelixConfiguration", metadata: { name: "default" } },
          { kind: "ClusterInformationList", items: [] },
        ),
        /printed .*; expected a JSON FelixConfigurationList/,
      ],
      [
        "a failing command",
        calicoctlAnswer({ rc: 1, stderr: "Failed to create Calico API client: boom" }),
        /failed with exit code 1, stderr: Failed to create Calico API client: boom; expected exit code 0/,
      ],
    ];
    for (const [title, script, message] of cases)
      it(`${title} is a clear failure naming the command`, async () => {
        const tools = fakeTools(script, {});
        const err = await rejection(observe(new LocalRunner(), options(tools)));
        expect(err.name).to.equal("DatastoreError");
        expect(err.message).to.match(message);
      });

    it("a command that hangs is stopped at command_timeout", async function () {
      this.timeout(10000);
      const tools = fakeTools(calicoctlAnswer({ sleep: 5, stdout: "{}" }), {});
      const err = await rejection(
        observe(new LocalRunner(), options(tools, { timeoutSeconds: 1 })),
      );
      expect(err.message).to.match(/get -f - -o json .*: timed out/);
    });
  });

  it("refuses kubectl for an etcd datastore", async () => {
    const tools = fakeTools({}, {});
    const err = await rejection(
      observe(new LocalRunner(), options(tools, { client: "kubectl", datastore: "etcd" })),
    );
    expect(err.message).to.include("Set datastore_client: calicoctl");
  });

  it("reads a disabled pool and a second pool", async () => {
    const two = live218({
      pools: [pool(), pool({ name: "old", cidr: "10.240.0.0/16", disabled: true })],
    });
    const tools = fakeTools(calicoctlScript(two), kubectlScript(two, KUBECONFIG));
    const live = await observe(new LocalRunner(), options(tools));
    expect(live.pools.map((p) => [p.name, p.disabled])).to.deep.equal([
      ["default-pool", false],
      ["old", true],
    ]);
  });
});
