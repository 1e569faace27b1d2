// Which nodes a migration waits on: those the calico-node DaemonSet runs on, never a node outside its
// nodeSelector, affinity or tolerations, nor a stale Calico Node (etcd) without a Kubernetes Node.

import { expect } from "chai";
import type {
  ClusterObservation,
  KubeNode,
  PodPlacement,
} from "../../../src/calico/shared/observation.js";
import { unsettled } from "../../../src/calico/plan/plan.js";
import {
  nodesToConverge,
  notScheduledBecause,
  skippedNodeWarnings,
} from "../../../src/calico/plan/scheduling.js";
import { start } from "../../support/sim-cluster.js";

/** Kubespray's calico-node: calico_ds_nodeselector, tolerates every taint, host network. */
const KUBESPRAY: PodPlacement = {
  nodeSelector: { "kubernetes.io/os": "linux" },
  tolerations: [{ key: "", operator: "Exists", value: "", effect: "" }],
  requiredTerms: null,
  hostNetwork: true,
};

const kubeNode = (name: string, over: Partial<KubeNode> = {}): KubeNode => ({
  name,
  labels: { "kubernetes.io/os": "linux", "kubernetes.io/hostname": name },
  taints: [],
  ...over,
});

/** A converged IPIP cluster plus node-4, which has no calico-node: not ready, no tunnel address. */
function withNode4(
  node4: KubeNode | null,
  placement: PodPlacement = KUBESPRAY,
): ClusterObservation {
  const obs = start("IPIP Always", "bird", "explicit");
  const nodes = [
    ...obs.nodes,
    {
      name: "node-4",
      labels: node4?.labels ?? {},
      tunnel: { ipip: null, vxlan: null, vxlanV6: null },
      calicoNodeReady: false,
    },
  ];
  const kube = obs.nodes.map((n) => kubeNode(n.name));
  return { ...obs, nodes, kubeNodes: node4 ? [...kube, node4] : kube, placement };
}

describe("nodes a migration waits on", () => {
  it("skips a node outside the DaemonSet's nodeSelector, and says why", () => {
    const obs = withNode4(kubeNode("node-4", { labels: { "kubernetes.io/hostname": "node-4" } }));
    expect(unsettled(obs)).to.deep.equal([]);
    expect(nodesToConverge(obs).converge.map((n) => n.name)).to.deep.equal([
      "node-1",
      "node-2",
      "node-3",
    ]);
    expect(skippedNodeWarnings(obs)).to.deep.equal([
      "Node node-4 was not waited on (no calico-node there to converge): the calico-node DaemonSet does not run on it: its nodeSelector kubernetes.io/os: linux does not match the node's labels.",
    ]);
  });

  it("still waits on a node the DaemonSet runs on whose calico-node is not ready", () => {
    const obs = withNode4(kubeNode("node-4"));
    expect(unsettled(obs)).to.deep.equal([
      "calico-node not ready on node-4",
      "tunnel address missing on node-4 (ipip)",
    ]);
    expect(skippedNodeWarnings(obs)).to.deep.equal([]);
  });

  it("skips a stale Calico Node that has no Kubernetes Node (etcd datastore)", () => {
    const obs = withNode4(null);
    expect(unsettled(obs)).to.deep.equal([]);
    expect(skippedNodeWarnings(obs)[0]).to.include(
      "Calico Node node-4 has no Kubernetes Node node-4 (a stale Calico Node; 'calicoctl delete node node-4' removes it)",
    );
  });

  it("matches Calico Nodes to Kubernetes Nodes by their orchRefs, and waits on all when no name matches", () => {
    const obs = withNode4(kubeNode("node-4"));
    const renamed = {
      ...obs,
      nodes: obs.nodes.map((n) => ({ ...n, name: `${n.name}.example`, kubeNodeName: n.name })),
    };
    expect(nodesToConverge(renamed).skipped).to.deep.equal([]);
    const unmatched = {
      ...obs,
      nodes: obs.nodes.map((n) => ({ ...n, name: `${n.name}.example` })),
    };
    expect(nodesToConverge(unmatched).converge).to.have.length(4);
  });

  it("waits on every node when the Kubernetes Nodes were not read", () => {
    const obs = withNode4(kubeNode("node-4", { labels: {} }));
    expect(nodesToConverge({ ...obs, kubeNodes: undefined }).converge).to.have.length(4);
  });
});

describe("where the calico-node DaemonSet runs", () => {
  const strict: PodPlacement = { ...KUBESPRAY, tolerations: [] };
  const taint = (key: string, effect: string, value = "") => ({ key, value, effect });

  it("runs despite any taint with Kubespray's toleration (operator Exists)", () => {
    const node = kubeNode("cp", {
      taints: [taint("node-role.kubernetes.io/control-plane", "NoSchedule")],
    });
    expect(notScheduledBecause(KUBESPRAY, node)).to.equal(null);
  });

  it("does not run on a NoSchedule or NoExecute taint it does not tolerate", () => {
    const node = kubeNode("gpu", { taints: [taint("dedicated", "NoSchedule", "gpu")] });
    expect(notScheduledBecause(strict, node)).to.equal(
      "it does not tolerate the node's taint dedicated=gpu:NoSchedule",
    );
    expect(
      notScheduledBecause(strict, kubeNode("x", { taints: [taint("k", "NoExecute")] })),
    ).to.match(/k:NoExecute/);
  });

  it("runs despite PreferNoSchedule, the taints every daemon pod tolerates, and a matching toleration", () => {
    for (const t of [
      taint("k", "PreferNoSchedule"),
      taint("node.kubernetes.io/unschedulable", "NoSchedule"),
      taint("node.kubernetes.io/not-ready", "NoExecute"),
      taint("node.kubernetes.io/network-unavailable", "NoSchedule"),
    ])
      expect(notScheduledBecause(strict, kubeNode("n", { taints: [t] })), t.key).to.equal(null);
    const tolerating: PodPlacement = {
      ...strict,
      tolerations: [{ key: "dedicated", operator: "Equal", value: "gpu", effect: "NoSchedule" }],
    };
    expect(
      notScheduledBecause(
        tolerating,
        kubeNode("n", { taints: [taint("dedicated", "NoSchedule", "gpu")] }),
      ),
    ).to.equal(null);
    expect(
      notScheduledBecause(
        tolerating,
        kubeNode("n", { taints: [taint("dedicated", "NoSchedule", "db")] }),
      ),
    ).to.not.equal(null);
  });

  it("follows required node affinity: any term, every requirement", () => {
    const placement: PodPlacement = {
      ...KUBESPRAY,
      requiredTerms: [
        [{ field: false, key: "calico", operator: "In", values: ["yes"] }],
        [{ field: true, key: "metadata.name", operator: "In", values: ["special"] }],
      ],
    };
    const labelled = kubeNode("n", { labels: { ...kubeNode("n").labels, calico: "yes" } });
    expect(notScheduledBecause(placement, labelled)).to.equal(null);
    expect(notScheduledBecause(placement, kubeNode("special"))).to.equal(null);
    expect(notScheduledBecause(placement, kubeNode("other"))).to.match(
      /^its required node affinity does not select the node \(calico In \(yes\) or metadata.name In \(special\)\)$/,
    );
  });

  it("an empty nodeSelectorTerm selects no node, as in Kubernetes; the other terms still can", () => {
    const placement: PodPlacement = { ...KUBESPRAY, requiredTerms: [[]] };
    expect(notScheduledBecause(placement, kubeNode("n"))).to.match(
      /^its required node affinity does not select the node/,
    );
    const withAnother: PodPlacement = {
      ...KUBESPRAY,
      requiredTerms: [[], [{ field: true, key: "metadata.name", operator: "In", values: ["n"] }]],
    };
    expect(notScheduledBecause(withAnother, kubeNode("n"))).to.equal(null);
  });
});
