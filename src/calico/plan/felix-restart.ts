// Felix restarts itself when its node's tunnel address or its encapsulation changes, and nothing in the
// datastore shows it: the one wait that is a dwell after an observed cause rather than an observed condition.
//
// Calico v3.31.0 (reference/real-calico-node.md): felixnodeprocessor.go passes the node's IpInIpTunnelAddr and
// IPv4VXLANTunnelAddr to the local Felix as config, and daemon.go restarts on a changed config field, and on
// "IPIP and/or VXLAN encapsulation changed": it sleeps 2 s and exits with code 129; runit starts it again, and it
// resyncs before it programs routes through a new VTEP (0.3-2.5 s measured in the lab). The kernel keeps the old
// routes meanwhile. calico-node's readiness probe (Kubespray: period 10 s, failureThreshold 6) never turns the
// pod NotReady for it, so the wait after such a write lasts FELIX_RESTART_SECONDS from the last change it saw.
//
// The write that turns programClusterRoutes on waits FELIX_TAKEOVER_SECONDS instead: until the restarted Felix has
// replaced BIRD's routes with its own, BIRD still owns them, and the next write (the tunnel pool, whose creation
// makes confd reload BIRD, which deletes and re-adds every route it keeps; or the pool switch, at which BIRD
// withdraws) reopens the race that Felix's path exists to close. Measured in the lab's kept logs (2026-12-04, 95
// restarts of the real Felix v3.31.0 that took over BIRD's routes, in 38 lab runs at load 1-45 on 2 cores): from Felix
// seeing the change to its first route of BIRD's replaced, median 3.4 s, 95th percentile 5.4 s, longest 7.7 s (2 s of
// Felix's sleep, 2.7 s for runsv to start it again at load 30, 2.9 s to resync); 13 of the 95 took longer than 5 s
// (test/bench/FIGURES.md, "When Felix takes BIRD's routes over").

import { someNames } from "../shared/names.js";
import type { Write } from "./plan.js";
import type { NodeObservation } from "../shared/observation.js";
import { TUNNEL_KINDS } from "../shared/tunnels.js";

/** 2 s of Felix's own delay, up to 1 s for runsv to start it again, and its resync on a loaded node. */
export const FELIX_RESTART_SECONDS = 5;

/** The restart that hands BIRD's routes to Felix (programClusterRoutes on): the longest measured, 7.7 s, and half again. */
export const FELIX_TAKEOVER_SECONDS = 12;

/** Why Felix restarts: a node's tunnel address, the encapsulation flags, or programClusterRoutes turned on. */
export type FelixRestartCause = "tunnel address" | "encapsulation" | "takeover";

/**
 * A Felix restart the wait holds for: its cause, when it was seen, on which nodes (none: every node), and for how
 * long.
 */
export interface FelixRestart {
  cause: FelixRestartCause;
  at: number;
  nodes: readonly string[];
  seconds: number;
}

/**
 * The restart a write causes as soon as it is written (FelixConfiguration's ipipEnabled, vxlanEnabled or
 * programClusterRoutes), seen at `at`; null for any other write.
 */
export function restartAfterWrite(w: Write | null, at: number): FelixRestart | null {
  if (w?.kind !== "felix") return null;
  return w.set.programClusterRoutes === "Enabled"
    ? { cause: "takeover", at, nodes: [], seconds: FELIX_TAKEOVER_SECONDS }
    : { cause: "encapsulation", at, nodes: [], seconds: FELIX_RESTART_SECONDS };
}

/** The restart of the Felixes on the nodes whose tunnel address was seen to change at `at`. */
export function restartAfterTunnelChange(nodes: readonly string[], at: number): FelixRestart {
  return { cause: "tunnel address", at, nodes, seconds: FELIX_RESTART_SECONDS };
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

/** Of a restart already waited for and a newly seen one, the one the wait must hold for longer. */
export function laterRestart(held: FelixRestart | null, seen: FelixRestart): FelixRestart {
  return held && held.at + held.seconds * 1000 > seen.at + seen.seconds * 1000 ? held : seen;
}

const WHY: Record<FelixRestartCause, string> = {
  "tunnel address": "its tunnel address changed",
  encapsulation: "its encapsulation changed",
  takeover: "programClusterRoutes was turned on, to take the IPIP routes over from BIRD",
};

/** What a wait still holds for: "Felix restarting on node-1, node-2 (3 s left)", or null when the dwell is over. */
export function felixRestartPending(cause: FelixRestart | null, now: number): string | null {
  if (!cause) return null;
  const left = Math.ceil((cause.at + cause.seconds * 1000 - now) / 1000);
  if (left <= 0) return null;
  const where = cause.nodes.length ? ` on ${someNames(cause.nodes)}` : " on every node";
  return `Felix restarting${where} after ${WHY[cause.cause]} (${left} s left; Calico restarts Felix for it and nothing in the datastore shows when it is back)`;
}
