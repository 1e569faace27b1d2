// Calico's CRDs (crd.projectcalico.org/v1) and the Kubernetes objects Kubespray writes, through kubectl:
// two processes whatever the number of nodes.

import type { CalicoObjects } from "./read-calicoctl.js";
import type { Json } from "./decode.js";
import { decodeKind, field, items } from "./decode.js";
import { DatastoreError } from "./errors.js";
import { calicoVersionOf, parsePool, splitFelix } from "./parse-calico.js";
import type { CommandRunner } from "./runner.js";
import { RC_NOT_FOUND } from "./runner.js";

export const CALICO_CRDS = [
  "ippools.crd.projectcalico.org",
  "felixconfigurations.crd.projectcalico.org",
  "clusterinformations.crd.projectcalico.org",
];

export function kubectlBase(kubectl: string, kubeconfig: string): string[] {
  return [kubectl, "--kubeconfig", kubeconfig];
}

/** The argv that reads Calico's CRDs. */
export function calicoCrdsArgv(base: readonly string[]): string[] {
  return [...base, "get", CALICO_CRDS.join(","), "-o", "json"];
}

/** The argv that reads calico-config and the calico-node DaemonSet. */
export function kubesprayObjectsArgv(base: readonly string[]): string[] {
  return [
    ...base,
    "--namespace",
    "kube-system",
    "get",
    "configmap/calico-config",
    "daemonset/calico-node",
    "--ignore-not-found",
    "-o",
    "json",
  ];
}

export type KubectlCalicoRead =
  { kind: "objects"; objects: CalicoObjects } | { kind: "absent"; reason: string };

export async function readCalicoWithKubectl(
  runner: CommandRunner,
  base: readonly string[],
  timeoutSeconds: number,
): Promise<KubectlCalicoRead> {
  const argv = calicoCrdsArgv(base);
  const r = await runner.run(argv, { timeoutSeconds });
  if (r.rc === RC_NOT_FOUND)
    return {
      kind: "absent",
      reason: `${base[0] ?? "kubectl"} is not installed (no control plane yet)`,
    };
  if (r.rc !== 0) {
    if (/doesn't have a resource type|no matches for kind/i.test(r.stderr))
      return { kind: "absent", reason: "the Calico CRDs are not installed" };
    if (/stat .*: no such file or directory/i.test(r.stderr))
      return {
        kind: "absent",
        reason: `the kubeconfig ${base[2] ?? ""} does not exist (no control plane yet)`,
      };
    throw DatastoreError.failed(
      argv,
      r,
      "Check kubectl and the kubeconfig (Kubespray's admin.conf on control-plane hosts).",
    );
  }
  const all = items(decodeKind(argv, r.stdout, ["List"]));
  const ofKind = (kind: string): Json[] => all.filter((o) => o.kind === kind);
  const pools = ofKind("IPPool");
  if (pools.length === 0) return { kind: "absent", reason: "the datastore has no IPPool" };
  const info = ofKind("ClusterInformation").find((o) => field(o, "metadata", "name") === "default");
  return {
    kind: "objects",
    objects: {
      pools: pools.map(parsePool),
      ...splitFelix(ofKind("FelixConfiguration")),
      calicoVersion: calicoVersionOf(info),
    },
  };
}

/** ConfigMap kube-system/calico-config and DaemonSet kube-system/calico-node (either may be missing);
 *  null when kubectl itself is not installed. */
export async function readKubesprayObjects(
  runner: CommandRunner,
  base: readonly string[],
  timeoutSeconds: number,
): Promise<{ configMap?: Json; daemonSet?: Json } | null> {
  const argv = kubesprayObjectsArgv(base);
  const r = await runner.run(argv, { timeoutSeconds });
  if (r.rc === RC_NOT_FOUND) return null;
  if (r.rc !== 0)
    throw DatastoreError.failed(
      argv,
      r,
      "Check kubectl and the kubeconfig (Kubespray's admin.conf on control-plane hosts).",
    );
  if (r.stdout.trim() === "") return {};
  const out = decodeKind(argv, r.stdout, ["List", "ConfigMap", "DaemonSet"]);
  const objects = out.kind === "List" ? items(out) : [out];
  return {
    configMap: objects.find((o) => o.kind === "ConfigMap"),
    daemonSet: objects.find((o) => o.kind === "DaemonSet"),
  };
}
