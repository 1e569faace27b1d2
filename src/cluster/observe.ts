// Observing the live cluster: choose calicoctl or kubectl, read everything once, and build Live.

import type { Live } from "../calico/shared/model.js";
import type { Json } from "./decode.js";
import { DatastoreError } from "./errors.js";
import { heldMaxUnavailableOf } from "./parse-migration.js";
import {
  backendFromConfigMap,
  etcdEndpointsFromConfigMap,
  kubesprayAppliedFrom,
  nodeEnvFromDaemonSet,
} from "./parse-k8s.js";
import type { CalicoObjects } from "./read-calicoctl.js";
import { prefetching } from "./prefetch.js";
import { calicoctlRead, readWithCalicoctl } from "./read-calicoctl.js";
import {
  calicoCrdsArgv,
  kubectlBase,
  kubesprayObjectsArgv,
  readCalicoWithKubectl,
  readKubesprayObjects,
} from "./read-kubectl.js";
import type { BatchCommand, CommandRunner } from "./runner.js";

export interface ObserveOptions {
  client: "auto" | "calicoctl" | "kubectl";
  datastore: "kdd" | "etcd";
  calicoctlPath: string;
  kubectlPath: string;
  kubeconfig: string;
  timeoutSeconds: number;
}

/** The modules' datastore options (the same names in every module's schema) as ObserveOptions. */
export function observeOptionsFrom(p: {
  datastore_client: ObserveOptions["client"];
  datastore: ObserveOptions["datastore"];
  calicoctl_path: string;
  kubectl_path: string;
  kubeconfig: string;
  command_timeout: number;
}): ObserveOptions {
  return {
    client: p.datastore_client,
    datastore: p.datastore,
    calicoctlPath: p.calicoctl_path,
    kubectlPath: p.kubectl_path,
    kubeconfig: p.kubeconfig,
    timeoutSeconds: p.command_timeout,
  };
}

function absent(client: Live["client"], reason: string): Live {
  return {
    calicoInstalled: false,
    reason,
    client,
    calicoVersion: null,
    pools: [],
    felixDefault: null,
    felixNodes: {},
    configMapBackend: null,
    configMapEtcdEndpoints: null,
    nodeEnv: null,
  };
}

type KubesprayObjects = { configMap?: Json; daemonSet?: Json } | null;

/** What calico-config and the calico-node DaemonSet say (the datastore, the backend, the IP families). */
function deployment(
  k8s: KubesprayObjects,
): Pick<
  Live,
  | "configMapBackend"
  | "configMapEtcdEndpoints"
  | "nodeEnv"
  | "heldMaxUnavailable"
  | "kubesprayApplied"
> {
  const held = heldMaxUnavailableOf(k8s?.daemonSet);
  const applied = kubesprayAppliedFrom(k8s?.configMap, k8s?.daemonSet);
  return {
    configMapBackend: backendFromConfigMap(k8s?.configMap),
    configMapEtcdEndpoints: etcdEndpointsFromConfigMap(k8s?.configMap),
    nodeEnv: nodeEnvFromDaemonSet(k8s?.daemonSet),
    ...(held === undefined ? {} : { heldMaxUnavailable: held }),
    ...(applied ? { kubesprayApplied: applied } : {}),
  };
}

async function calicoObjects(
  runner: CommandRunner,
  o: ObserveOptions,
): Promise<{
  client: Live["client"];
  read: { kind: "objects"; objects: CalicoObjects } | { kind: "absent"; reason: string };
}> {
  const base = kubectlBase(o.kubectlPath, o.kubeconfig);
  if (o.client !== "kubectl") {
    const read = await readWithCalicoctl(runner, o.calicoctlPath, o.timeoutSeconds);
    if (read.kind !== "no-calicoctl") return { client: "calicoctl", read };
    if (o.client === "calicoctl" || o.datastore === "etcd")
      return {
        client: "calicoctl",
        read: { kind: "absent", reason: `${o.calicoctlPath} is not installed (no Calico yet)` },
      };
  }
  if (o.datastore === "etcd")
    throw new DatastoreError(
      [o.kubectlPath],
      "datastore_client is kubectl while datastore is etcd",
      "calicoctl for an etcd datastore",
      "Set datastore_client: calicoctl (or auto) with calicoctl_path pointing at Kubespray's calicoctl.sh.",
    );
  const read = await readCalicoWithKubectl(runner, base, o.timeoutSeconds);
  if (read.kind === "absent" && o.client === "auto")
    return {
      client: "kubectl",
      read: { ...read, reason: `${o.calicoctlPath} is not installed and ${read.reason}` },
    };
  return { client: "kubectl", read };
}

/** Live, and the calico-node DaemonSet it was read from (the migration's rollout reads it too). */
export interface Observed {
  live: Live;
  daemonSet: Json | undefined;
}

/**
 * The reads an observation starts with, all at once: Calico's objects with the client it tries first, and
 * calico-config with the calico-node DaemonSet. Only a fallback from calicoctl to kubectl reads again.
 */
export function observeReads(o: ObserveOptions): BatchCommand[] {
  const base = kubectlBase(o.kubectlPath, o.kubeconfig);
  const read = (argv: string[]): BatchCommand => ({ argv, timeoutSeconds: o.timeoutSeconds });
  const calico =
    o.client === "kubectl"
      ? read(calicoCrdsArgv(base))
      : calicoctlRead(o.calicoctlPath, o.timeoutSeconds);
  return [calico, read(kubesprayObjectsArgv(base))];
}

/** Live, its reads sent as one batch (one round trip through the bridge). */
export async function observe(runner: CommandRunner, o: ObserveOptions): Promise<Live> {
  return (await observeWithObjects(prefetching(runner, observeReads(o)), o)).live;
}

export async function observeWithObjects(
  runner: CommandRunner,
  o: ObserveOptions,
): Promise<Observed> {
  // Both reads at once: the Kubernetes objects are only used (and their errors only count) when Calico is there.
  const [calico, kubespray] = await Promise.allSettled([
    calicoObjects(runner, o),
    readKubesprayObjects(runner, kubectlBase(o.kubectlPath, o.kubeconfig), o.timeoutSeconds),
  ]);
  if (calico.status === "rejected") throw calico.reason;
  const { client, read } = calico.value;
  if (read.kind === "absent") {
    // calico-config and calico-node still tell whether Calico is deployed, and on which datastore: a calicoctl.sh
    // set up for the other datastore finds no pool where calico-node runs.
    const k8s = kubespray.status === "fulfilled" ? kubespray.value : null;
    return { live: { ...absent(client, read.reason), ...deployment(k8s) }, daemonSet: undefined };
  }
  if (kubespray.status === "rejected") throw kubespray.reason;
  const k8s = kubespray.value;
  const live: Live = {
    calicoInstalled: true,
    reason:
      k8s === null
        ? `read with ${client}; ${o.kubectlPath} is not installed, so calico-config and calico-node were not read`
        : `read with ${client}`,
    client,
    ...read.objects,
    ...deployment(k8s),
  };
  return { live, daemonSet: k8s?.daemonSet };
}
