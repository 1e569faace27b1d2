// One poll of everything calico_encap_migrate decides and waits on: the check's view of Calico, the nodes'
// tunnel addresses and the calico-node rollout. A fixed number of processes per poll, whatever the node count:
// the check's reads (3 calicoctl or 1 kubectl, and calico-config with the calico-node DaemonSet), the nodes
// (through calicoctl also the Kubernetes Nodes, to tell which Calico nodes calico-node runs on), and the
// calico-node pods.

import type { ClusterObservation } from "../calico/observation.js";
import { decodeKind, items } from "./decode.js";
import { DatastoreError } from "./errors.js";
import type { ObserveOptions } from "./observe.js";
import { observeWithObjects } from "./observe.js";
import {
  parseKubeNode,
  parseNode,
  parsePlacement,
  parseRollout,
  readyNodes,
} from "./parse-migration.js";
import { kubectlBase } from "./read-kubectl.js";
import type { CommandRunner } from "./runner.js";

async function run(runner: CommandRunner, argv: string[], kinds: string[], timeoutSeconds: number) {
  const r = await runner.run(argv, { timeoutSeconds });
  if (r.rc !== 0)
    throw DatastoreError.failed(
      argv,
      r,
      "Check that the cluster is reachable with these paths and credentials.",
    );
  return decodeKind(argv, r.stdout, kinds);
}

export async function observeForMigration(
  runner: CommandRunner,
  o: ObserveOptions,
): Promise<ClusterObservation> {
  const { live, daemonSet } = await observeWithObjects(runner, o);
  const base = kubectlBase(o.kubectlPath, o.kubeconfig);
  const kubeNodesArgv = [...base, "get", "nodes", "-o", "json"];
  const calicoctl = live.client === "calicoctl";
  const nodesArgv = calicoctl ? [o.calicoctlPath, "get", "nodes", "-o", "json"] : kubeNodesArgv;
  const podsArgv = [
    ...base,
    "--namespace",
    "kube-system",
    "get",
    "pods",
    "--selector",
    "k8s-app=calico-node",
    "-o",
    "json",
  ];
  const [nodeList, pods, kubeNodeList] = await Promise.all([
    run(runner, nodesArgv, ["NodeList", "List"], o.timeoutSeconds),
    run(runner, podsArgv, ["PodList", "List"], o.timeoutSeconds),
    calicoctl ? run(runner, kubeNodesArgv, ["NodeList", "List"], o.timeoutSeconds) : undefined,
  ]);
  const ready = readyNodes(items(pods).filter((x) => x.kind === "Pod"));
  const kubeNodes = items(kubeNodeList ?? nodeList)
    .filter((x) => x.kind === undefined || x.kind === "Node")
    .map(parseKubeNode);
  return {
    kubeNodes,
    placement: parsePlacement(daemonSet),
    live,
    nodes: items(nodeList).map((n) => {
      const node = parseNode(n);
      return { ...node, calicoNodeReady: ready.has(node.name) };
    }),
    rollout: parseRollout(daemonSet),
  };
}
