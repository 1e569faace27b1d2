// Felix restarts itself when its node's tunnel address or its encapsulation changes, and nothing in the
// datastore shows it: the one wait that is a dwell after an observed cause rather than an observed condition.
//
// Calico v3.31.0 (reference/real-calico-node.md): felixnodeprocessor.go passes the node's IpInIpTunnelAddr and
// IPv4VXLANTunnelAddr to the local Felix as config, and daemon.go restarts on a changed config field, and on
// "IPIP and/or VXLAN encapsulation changed": it sleeps 2 s and exits with code 129; runit starts it again, and it
// resyncs before it programs routes through a new VTEP (0.3-2.5 s measured in the lab). The kernel keeps the old
// routes meanwhile. calico-node's readiness probe (Kubespray: period 10 s, failureThreshold 6) never turns the
// pod NotReady for it, so the wait after such a write lasts FELIX_RESTART_SECONDS from the last change it saw.

import type { Write } from "./plan.js";
import type { NodeObservation } from "../shared/observation.js";
import { TUNNEL_KINDS } from "../shared/tunnels.js";

/** 2 s of Felix's own delay, up to 1 s for runsv to start it again, and its resync on a loaded node. */
export const FELIX_RESTART_SECONDS = 5;

/** A write Felix restarts for as soon as it is written: FelixConfiguration's ipipEnabled or vxlanEnabled. */
export function restartsFelixAtOnce(w: Write | null): boolean {
  return w?.kind === "felix";
}

/** Nodes whose tunnel addresses differ between two observations (a node that appears or goes counts too). */
export function tunnelsChanged(
  before: readonly NodeObservation[],
  after: readonly NodeObservation[],
): string[] {
  const key = (n: NodeObservation | undefined): string =>
    n ? TUNNEL_KINDS.map((k) => n.tunnel[k] ?? "").join(",") : "absent";
  const names = new Set([...before, ...after].map((n) => n.name));
  return [...names]
    .filter(
      (name) =>
        key(before.find((n) => n.name === name)) !== key(after.find((n) => n.name === name)),
    )
    .sort();
}

/** What a wait still holds for: "Felix restarting on node-1, node-2 (3 s left)", or null when the dwell is over. */
export function felixRestartPending(
  cause: { at: number; nodes: readonly string[] } | null,
  now: number,
): string | null {
  if (!cause) return null;
  const left = Math.ceil((cause.at + FELIX_RESTART_SECONDS * 1000 - now) / 1000);
  if (left <= 0) return null;
  const where = cause.nodes.length ? ` on ${cause.nodes.join(", ")}` : " on every node";
  return `Felix restarting${where} after its ${cause.nodes.length ? "tunnel address" : "encapsulation"} changed (${left} s left; Calico restarts Felix for it and nothing in the datastore shows when it is back)`;
}
