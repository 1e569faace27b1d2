// How the calico-node DaemonSet rolls a new pod template, and when calico_encap_migrate makes it roll on every
// node at once. Pure.
//
// A pod switched to backend bird turns Ready only once BIRD has an established session with every peer
// (calico-node -bird-ready, node/pkg/health/health.go checkBIRDReady), and a pod still on backend vxlan runs no
// BIRD. Rolled a few nodes at a time (Kubespray renders maxUnavailable 20%), the first BIRD pods never turn Ready
// and the rollout stops there (measured on the lab's real calico-node: 3 nodes, maxUnavailable 1). So before
// switching a non-BGP backend to bird, the migration sets maxUnavailable to 100%, keeping the value it found in
// an annotation, and puts it back once nothing else is left to do. The template change then replaces every pod at
// once; the VXLAN routes Felix programmed stay in the kernel while the pods restart (Felix does not remove them).

import type { MaxUnavailable } from "./model.js";
import type { RolloutObservation } from "./observation.js";

/** The object this module is about, as findings and the diff name it. */
export const CALICO_NODE_DAEMONSET = "DaemonSet kube-system/calico-node";

/** The DaemonSet annotation that keeps the maxUnavailable the migration found, as JSON. */
export const HELD_MAX_UNAVAILABLE = "calico-encap-migrate/max-unavailable";

export const ALL_AT_ONCE = "100%";

/** Pods the DaemonSet controller replaces at a time: a percentage of desired rounded up, as the controller does. */
export function podsAtOnce(maxUnavailable: MaxUnavailable, desired: number): number {
  if (maxUnavailable === null) return 1;
  if (typeof maxUnavailable === "number") return maxUnavailable;
  const pct = /^(\d+)%$/.exec(maxUnavailable.trim());
  return pct ? Math.ceil((Number(pct[1]) * desired) / 100) : Number(maxUnavailable) || 1;
}

/** The template rolls on every node at once (true on a single node, too). */
export function rollsAllAtOnce(r: RolloutObservation): boolean {
  if (r.maxUnavailable === undefined) return true;
  return podsAtOnce(r.maxUnavailable, r.desired) >= r.desired;
}

/** What a maxUnavailable reads as in a step title: "20%", "1", or "unset (1)". */
export function showMaxUnavailable(v: MaxUnavailable): string {
  return v === null ? "unset (1)" : String(v);
}

/** The annotation's value for a maxUnavailable, and back; undefined for an unreadable annotation. */
export function heldValue(v: MaxUnavailable): string {
  return JSON.stringify(v);
}
export function parseHeld(text: string): MaxUnavailable | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v === null || typeof v === "number" || typeof v === "string" ? v : undefined;
  } catch {
    return undefined;
  }
}
