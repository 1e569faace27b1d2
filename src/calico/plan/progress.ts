// How far a wait has come: the nodes calico-node runs on that have converged, and calico-node's rollout. A wait
// times out only after wait_timeout without progress (src/migrate/waits.ts), so a roll through many nodes at the DaemonSet's
// maxUnavailable gets the time it takes, while a wait that stops moving ends after wait_timeout as before.

import type { ClusterObservation } from "../shared/observation.js";
import { missingTunnels } from "../shared/tunnels.js";
import { nodesToConverge } from "./scheduling.js";

/** Nodes calico-node runs on, and those of them ready with every tunnel address they need. */
export function convergedNodes(obs: ClusterObservation): { done: number; of: number } {
  const nodes = nodesToConverge(obs).converge;
  const done = nodes.filter(
    (n) => n.calicoNodeReady && missingTunnels(obs.live.pools, [n]).length === 0,
  ).length;
  return { done, of: nodes.length };
}

/**
 * One number that grows as a wait gets closer to done: converged nodes, plus calico-node pods updated and ready in
 * the rollout. Only a new high counts as progress, so a node that flaps between ready and not does not keep a wait
 * alive.
 */
export function progressOf(obs: ClusterObservation): number {
  const r = obs.rollout;
  return convergedNodes(obs).done + (r.observed ? r.updated + r.ready : 0);
}
