// Which of Calico's nodes must converge during a migration: those calico-node runs on. The others would hold a
// wait until wait_timeout, since no calico-node gives them tunnel addresses or readiness:
//  - Kubernetes Nodes the calico-node DaemonSet does not schedule onto: its nodeSelector (Kubespray renders it
//    from calico_ds_nodeselector), its required node affinity, or a NoSchedule/NoExecute taint it does not
//    tolerate (with the tolerations the DaemonSet controller adds to every daemon pod);
//  - Calico Nodes with no Kubernetes Node (etcd datastore: stale objects of removed nodes).
// They are skipped and named as warnings. Pure.

import type {
  ClusterObservation,
  KubeNode,
  NodeObservation,
  NodeRequirement,
  PodPlacement,
  Toleration,
} from "../shared/observation.js";

/** The tolerations the DaemonSet controller adds to every daemon pod (network-unavailable: hostNetwork ones). */
function daemonTolerations(hostNetwork: boolean): Toleration[] {
  const exists = (key: string, effect: string): Toleration => ({
    key: `node.kubernetes.io/${key}`,
    operator: "Exists",
    value: "",
    effect,
  });
  return [
    exists("not-ready", "NoExecute"),
    exists("unreachable", "NoExecute"),
    exists("disk-pressure", "NoSchedule"),
    exists("memory-pressure", "NoSchedule"),
    exists("pid-pressure", "NoSchedule"),
    exists("unschedulable", "NoSchedule"),
    ...(hostNetwork ? [exists("network-unavailable", "NoSchedule")] : []),
  ];
}

/** Kubernetes' Toleration.ToleratesTaint. */
function tolerates(t: Toleration, taint: KubeNode["taints"][number]): boolean {
  if (t.effect !== "" && t.effect !== taint.effect) return false;
  if (t.key !== "" && t.key !== taint.key) return false;
  if (t.operator === "Exists") return true;
  return (t.operator === "" || t.operator === "Equal") && t.value === taint.value;
}

/** One requirement; an operator this does not know counts as met (waiting on the node is the safe side). */
function meets(r: NodeRequirement, node: KubeNode): boolean {
  const has = r.field ? r.key === "metadata.name" : r.key in node.labels;
  const value = r.field ? (r.key === "metadata.name" ? node.name : undefined) : node.labels[r.key];
  switch (r.operator) {
    case "In":
      return has && r.values.includes(value ?? "");
    case "NotIn":
      return !has || !r.values.includes(value ?? "");
    case "Exists":
      return has;
    case "DoesNotExist":
      return !has;
    case "Gt":
    case "Lt": {
      const [a, b] = [Number(value), Number(r.values[0])];
      if (!has || !Number.isInteger(a) || !Number.isInteger(b)) return false;
      return r.operator === "Gt" ? a > b : a < b;
    }
    default:
      return true;
  }
}

const show = (r: NodeRequirement): string => `${r.key} ${r.operator} (${r.values.join(", ")})`;

/** Why the DaemonSet with this placement does not run on the node, or null when it does. */
export function notScheduledBecause(p: PodPlacement, node: KubeNode): string | null {
  const wrong = Object.entries(p.nodeSelector).filter(([k, v]) => node.labels[k] !== v);
  if (wrong.length)
    return `its nodeSelector ${wrong.map(([k, v]) => `${k}: ${v}`).join(", ")} does not match the node's labels`;
  // A term with no requirement selects no node (Kubernetes' NodeSelectorTerm: "an empty term matches no objects").
  if (
    p.requiredTerms !== null &&
    !p.requiredTerms.some((t) => t.length > 0 && t.every((r) => meets(r, node)))
  )
    return `its required node affinity does not select the node (${p.requiredTerms.map((t) => t.map(show).join(" and ")).join(" or ")})`;
  const tolerations = [...p.tolerations, ...daemonTolerations(p.hostNetwork)];
  const untolerated = node.taints.filter(
    (taint) =>
      (taint.effect === "NoSchedule" || taint.effect === "NoExecute") &&
      !tolerations.some((t) => tolerates(t, taint)),
  );
  if (untolerated.length)
    return `it does not tolerate the node's taint ${untolerated.map((t) => `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`).join(", ")}`;
  return null;
}

export interface Skipped {
  name: string;
  why: string;
}

/** Calico's nodes split into those a migration waits on and those it skips, with why. */
export function nodesToConverge(obs: ClusterObservation): {
  converge: NodeObservation[];
  skipped: Skipped[];
} {
  const kube = obs.kubeNodes;
  if (kube === undefined) return { converge: obs.nodes, skipped: [] };
  const byName = new Map(kube.map((k) => [k.name, k]));
  const refOf = (n: NodeObservation): string => n.kubeNodeName ?? n.name;
  // No Calico node matching any Kubernetes Node means the names differ, not that every node is stale: wait on all.
  const namesMatch = obs.nodes.some((n) => byName.has(refOf(n)));
  const converge: NodeObservation[] = [];
  const skipped: Skipped[] = [];
  for (const n of obs.nodes) {
    const k = byName.get(refOf(n));
    if (!k) {
      if (namesMatch)
        skipped.push({
          name: n.name,
          why: `Calico Node ${n.name} has no Kubernetes Node ${refOf(n)} (a stale Calico Node; 'calicoctl delete node ${n.name}' removes it)`,
        });
      else converge.push(n);
      continue;
    }
    const why = obs.placement ? notScheduledBecause(obs.placement, k) : null;
    if (why)
      skipped.push({ name: n.name, why: `the calico-node DaemonSet does not run on it: ${why}` });
    else converge.push(n);
  }
  return { converge, skipped };
}

/** The result's warnings for the skipped nodes. */
export function skippedNodeWarnings(obs: ClusterObservation): string[] {
  return nodesToConverge(obs).skipped.map(
    (s) => `Node ${s.name} was not waited on (no calico-node there to converge): ${s.why}.`,
  );
}
