// One poll of everything calico_encap_migrate decides and waits on: the check's view of Calico, the nodes'
// tunnel addresses and the calico-node rollout. A fixed number of processes per poll, whatever the node count:
// the check's reads (3 calicoctl or 1 kubectl, and calico-config with the calico-node DaemonSet), the nodes
// (through calicoctl also the Kubernetes Nodes, to tell which Calico nodes calico-node runs on), and the
// calico-node pods; all in one batch (one round trip to the target through the bridge).

import type { ClusterObservation } from "../calico/shared/observation.js";
import { decodeKind, items } from "./decode.js";
import { DatastoreError } from "./errors.js";
import type { ObserveOptions } from "./observe.js";
import { observeReads, observeWithObjects } from "./observe.js";
import { prefetching } from "./prefetch.js";
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

function kubeNodesArgv(o: ObserveOptions): string[] {
  return [...kubectlBase(o.kubectlPath, o.kubeconfig), "get", "nodes", "-o", "json"];
}

function nodesArgv(client: ObserveOptions["client"], o: ObserveOptions): string[] {
  return client === "kubectl" ? kubeNodesArgv(o) : [o.calicoctlPath, "get", "nodes", "-o", "json"];
}

function podsArgv(o: ObserveOptions): string[] {
  return [
    ...kubectlBase(o.kubectlPath, o.kubeconfig),
    "--namespace",
    "kube-system",
    "get",
    "pods",
    "--selector",
    "k8s-app=calico-node",
    "-o",
    "json",
  ];
}

/** One poll; its reads go as one batch (one round trip through the bridge) unless calicoctl is missing and
 *  kubectl is read instead. */
export async function observeForMigration(
  runner: CommandRunner,
  o: ObserveOptions,
): Promise<ClusterObservation> {
  const ownReads = [
    nodesArgv(o.client, o),
    podsArgv(o),
    ...(o.client === "kubectl" ? [] : [kubeNodesArgv(o)]),
  ];
  const batched = prefetching(runner, [
    ...observeReads(o),
    ...ownReads.map((argv) => ({ argv, timeoutSeconds: o.timeoutSeconds })),
  ]);
  const { live, daemonSet } = await observeWithObjects(batched, o);
  const calicoctl = live.client === "calicoctl";
  const [nodeList, pods, kubeNodeList] = await Promise.all([
    run(batched, nodesArgv(live.client, o), ["NodeList", "List"], o.timeoutSeconds),
    run(batched, podsArgv(o), ["PodList", "List"], o.timeoutSeconds),
    calicoctl ? run(batched, kubeNodesArgv(o), ["NodeList", "List"], o.timeoutSeconds) : undefined,
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
