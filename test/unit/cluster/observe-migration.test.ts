// One migration poll against recorded lab output: a fixed set of datastore calls, and the calico-node
// DaemonSet read once (with calico-config) for both the check's view and the rollout.

import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { observeForMigration } from "../../../src/cluster/observe-migration.js";
import type { CommandRunner } from "../../../src/cluster/runner.js";
import { unsettled } from "../../../src/calico/plan/plan.js";
import { skippedNodeWarnings } from "../../../src/calico/plan/scheduling.js";
import { FIXTURES } from "../../support/recorded.js";
import { leanNodesOf, leanPods } from "../../support/lean.js";
import { pod, RecordedPoll as Recorded } from "../../support/recorded-poll.js";

describe("one migration poll", () => {
  const options = {
    client: "auto" as const,
    datastore: "kdd" as const,
    calicoctlPath: "calicoctl",
    kubectlPath: "kubectl",
    kubeconfig: "/etc/kubernetes/admin.conf",
    timeoutSeconds: 5,
  };

  it("reads the calico-node DaemonSet once, and the pods without it", async () => {
    const runner = new Recorded();
    const obs = await observeForMigration(runner, options);
    expect(runner.calls.filter((c) => c.includes("daemonset"))).to.have.length(1);
    expect(runner.calls.filter((c) => c.includes("get pods"))).to.have.length(1);
    expect(obs.rollout).to.include({ templateBackend: "bird", desired: 3, updated: 3 });
    expect(obs.nodes.map((n) => [n.name, n.calicoNodeReady])).to.deep.equal([
      ["node-1", true],
      ["node-2", true],
      ["node-3", false],
    ]);
  });

  it("through calicoctl (etcd) also reads the Kubernetes Nodes, so a stale Calico Node is skipped", async () => {
    const etcd = (file: string): string => readFileSync(join(FIXTURES, "etcd", file), "utf8");
    const calicoNodes = JSON.parse(etcd("calicoctl-get-nodes.json")) as { items: object[] };
    calicoNodes.items.push({
      kind: "Node",
      apiVersion: "projectcalico.org/v3",
      metadata: { name: "node-9" },
      spec: { orchRefs: [{ nodeName: "node-9", orchestrator: "k8s" }] },
    });
    const answers: [string, string][] = [
      ["calicoctl get -f - -o json", etcd("calicoctl-get-kinds.json")],
      ["calicoctl get nodes", JSON.stringify(calicoNodes)],
      [
        "configmap/calico-config daemonset/calico-node",
        JSON.stringify({
          kind: "List",
          items: [
            JSON.parse(etcd("kubectl-get-configmap-calico-config.json")) as object,
            JSON.parse(etcd("kubectl-get-daemonset-calico-node.json")) as object,
          ],
        }),
      ],
      ["get nodes -o jsonpath=", leanNodesOf(etcd("kubectl-get-nodes.json"))],
      ["get pods", leanPods(["node-1", "node-2", "node-3"].map((n) => pod(n, true)))],
    ];
    const calls: string[] = [];
    const runner: CommandRunner = {
      run: (argv) => {
        const line = argv.join(" ");
        calls.push(line);
        const hit = answers.find(([k]) => line.includes(k));
        if (!hit) throw new Error(`unexpected command: ${line}`);
        return Promise.resolve({ rc: 0, stdout: hit[1], stderr: "", timedOut: false });
      },
    };
    const obs = await observeForMigration(runner, { ...options, datastore: "etcd" });
    expect(
      calls.filter((c) => c.startsWith("kubectl") && c.includes("get nodes -o jsonpath=")),
    ).to.have.length(1);
    expect(obs.kubeNodes?.map((n) => n.name)).to.deep.equal(["node-1", "node-2", "node-3"]);
    expect(obs.nodes.map((n) => [n.name, n.kubeNodeName])).to.deep.include(["node-9", "node-9"]);
    expect(obs.placement?.tolerations).to.deep.equal([
      { key: "", operator: "Exists", value: "", effect: "" },
    ]);
    expect(unsettled({ ...obs, kubeNodes: undefined }).join(" ")).to.include("node-9");
    expect(unsettled(obs).join(" ")).to.not.include("node-9");
    expect(skippedNodeWarnings(obs).join(" ")).to.include(
      "Calico Node node-9 has no Kubernetes Node",
    );
  });
});
