// One poll of everything calico_encap_migrate decides and waits on: the check's view of Calico, the nodes'
// tunnel addresses and the calico-node rollout. A fixed number of processes per poll, whatever the node count:
// the check's reads (3 calicoctl or 1 kubectl, and calico-config with the calico-node DaemonSet), the nodes
// (through calicoctl also the Kubernetes Nodes, to tell which Calico nodes calico-node runs on), and the
// calico-node pods; all in one batch (one round trip to the target through the bridge). The Kubernetes Nodes and the
// calico-node pods are read lean (parse-lean.ts: only the fields decided on); calicoctl, which has no jsonpath, prints
// the Calico Nodes whole (about 1.3 KB each).

import type { ClusterObservation } from "../calico/shared/observation.js";
import type { Json } from "./decode.js";
import { decodeKind, items } from "./decode.js";
import { DatastoreError } from "./errors.js";
import type { ObserveOptions } from "./observe.js";
import { observeReads, observeWithObjects } from "./observe.js";
import { prefetching } from "./prefetch.js";
import type { BlockAffinity } from "../calico/plan/fallback-routes.js";
import {
  AFFINITIES_JSONPATH,
  NODES_JSONPATH,
  PODS_TEMPLATE,
  parseLeanAffinities,
  parseLeanNodes,
  parseLeanPods,
  readyNodes,
} from "./parse-lean.js";
import { parseKubeNode, parseNode, parsePlacement, parseRollout } from "./parse-migration.js";
import { kubectlBase } from "./read-kubectl.js";
import type { CommandRunner } from "./runner.js";

async function read<T>(
  runner: CommandRunner,
  argv: string[],
  timeoutSeconds: number,
  parse: (argv: readonly string[], stdout: string) => T,
): Promise<T> {
  const r = await runner.run(argv, { timeoutSeconds });
  if (r.rc !== 0)
    throw DatastoreError.failed(
      argv,
      r,
      "Check that the cluster is reachable with these paths and credentials.",
    );
  return parse(argv, r.stdout);
}

const calicoNodes = (argv: readonly string[], stdout: string): Json[] =>
  items(decodeKind(argv, stdout, ["NodeList", "List"]));

function kubeNodesArgv(o: ObserveOptions): string[] {
  return [
    ...kubectlBase(o.kubectlPath, o.kubeconfig),
    "get",
    "nodes",
    "-o",
    `jsonpath=${NODES_JSONPATH}`,
  ];
}

function nodesArgv(client: ObserveOptions["client"], o: ObserveOptions): string[] {
  return client === "kubectl" ? kubeNodesArgv(o) : [o.calicoctlPath, "get", "nodes", "-o", "json"];
}

/** kubectl's arguments that list the calico-node pods. */
export const CALICO_NODE_PODS = [
  "--namespace",
  "kube-system",
  "get",
  "pods",
  "--selector",
  "k8s-app=calico-node",
] as const;

function podsArgv(o: ObserveOptions): string[] {
  return [
    ...kubectlBase(o.kubectlPath, o.kubeconfig),
    ...CALICO_NODE_PODS,
    "-o",
    `go-template=${PODS_TEMPLATE}`,
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
    read(
      batched,
      nodesArgv(live.client, o),
      o.timeoutSeconds,
      calicoctl ? calicoNodes : parseLeanNodes,
    ),
    read(batched, podsArgv(o), o.timeoutSeconds, parseLeanPods),
    calicoctl ? read(batched, kubeNodesArgv(o), o.timeoutSeconds, parseLeanNodes) : undefined,
  ]);
  const ready = readyNodes(pods);
  const kubeNodes = (kubeNodeList ?? nodeList).map(parseKubeNode);
  return {
    kubeNodes,
    placement: parsePlacement(daemonSet),
    live,
    nodes: nodeList.map((n) => {
      const node = parseNode(n);
      return { ...node, calicoNodeReady: ready.has(node.name) };
    }),
    rollout: parseRollout(daemonSet),
  };
}

/** The IPAM block affinities, read once where stop_before: pool_switch stops (kdd: crd.projectcalico.org). */
export function readBlockAffinities(
  runner: CommandRunner,
  o: ObserveOptions,
): Promise<BlockAffinity[]> {
  const argv = [
    ...kubectlBase(o.kubectlPath, o.kubeconfig),
    "get",
    "blockaffinities.crd.projectcalico.org",
    "-o",
    `jsonpath=${AFFINITIES_JSONPATH}`,
  ];
  return read(runner, argv, o.timeoutSeconds, parseLeanAffinities);
}
