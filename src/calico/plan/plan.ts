// calico_encap_migrate's planner, pure: from what the cluster is now to the ordered steps that reach the
// target, each a single write and the condition to wait for. The executor runs the first step, waits,
// observes and plans again, so the plan only ever needs to be right from the state it is given.
//
// Order (reference/calico.md, reference/kubespray-calico.md):
//  - towards BGP-routed pools (IPIP or unencapsulated): backend bird first, rolled out on every node at once
//    (rollout.ts: a BIRD pod is Ready only with its peers running BIRD), BIRD peered;
//  - Felix's IPIP / VXLAN turned on before any pool needs it;
//  - with tunnel_pool_cidr, a Tunnel-only VXLAN pool created before a pool moves into VXLAN, and every node's VTEP
//    allocated from it (tunnel-pool.ts), so that no VTEP moves at the pool's switch;
//  - each pool's ipipMode and vxlanMode switched in ONE write (Calico rejects both on), then wait until
//    every node the pool selects has its tunnel address and calico-node is ready;
//  - Felix's unused encapsulations unset (an explicit false leaves tunl0's address; unset follows the pools
//    on Calico >= 3.23 and is false before);
//  - away from BGP: the backend switched last, once no pool needs BIRD;
//  - the DaemonSet's maxUnavailable put back as it was found, when the run changed it;
//  - on Calico >= 3.31 with the tunnel pool of the direction (cluster-routes.ts): programClusterRoutes Enabled in the
//    same FelixConfiguration write that turns the encapsulations on (ipipEnabled explicitly true), before the tunnel
//    pool, so that Felix alone programs every route through the pool's switch; turned off with the unused flags once
//    no IPIP pool remains, and left on while one does (turning it off costs a BIRD scan).

import { someNames } from "../shared/names.js";
import { effectiveFlag, ENCAPSULATIONS, FELIX_FLAG, poolsUsing } from "../shared/felix.js";
import type { FelixInputs } from "../shared/felix.js";
import type {
  Backend,
  ClusterRoutes,
  EncapMode,
  FelixFlags,
  KubesprayApplied,
  Live,
  MaxUnavailable,
  Pool,
} from "../shared/model.js";
import type { ClusterObservation, Target } from "../shared/observation.js";
import {
  podsBackend,
  poolsNeedingBgp,
  runningBackend,
  poolsStrandedBy,
} from "../shared/routing.js";
import { backendRunsBgp, poolModeViolations } from "../shared/rules.js";
import { nodesToConverge } from "./scheduling.js";
import { missingTunnels } from "../shared/tunnels.js";
import type { TunnelEncap } from "../shared/tunnel-pool.js";
import {
  tunnelPoolCidrOf,
  tunnelPoolRefusal,
  tunnelPoolToCreate,
  workloadPools,
} from "../shared/tunnel-pool.js";
import type { RoutesPath } from "../shared/cluster-routes.js";
import {
  birdKeepsClusterRoutes,
  clusterRoutesEnabled,
  poolsNeedingClusterRoutes,
  ipipTunnelPoolRefusal,
  routesPath,
} from "../shared/cluster-routes.js";
import { ALL_AT_ONCE, rollsAllAtOnce, showMaxUnavailable } from "../shared/rollout.js";

/** FelixConfiguration default's fields a write sets; null unsets one. */
export interface FelixSet {
  ipipEnabled?: boolean | null;
  vxlanEnabled?: boolean | null;
  programClusterRoutes?: ClusterRoutes | null;
}

export type Write =
  | { kind: "felix"; set: FelixSet }
  | {
      kind: "pool";
      pool: string;
      from: { ipipMode: EncapMode; vxlanMode: EncapMode };
      set: { ipipMode: EncapMode; vxlanMode: EncapMode };
    }
  | {
      kind: "backend";
      from: string | null;
      backend: Backend;
      /** What Kubespray's last apply left, so the write keeps its env order and annotations (kubespray-apply.ts). */
      applied?: KubesprayApplied;
    }
  /** Create a Tunnel-only VXLAN or IPIP pool (tunnel-pool.ts); it is never deleted. */
  | { kind: "tunnelPool"; pool: string; cidr: string; nodeSelector: string; encap: TunnelEncap }
  | {
      kind: "rollout";
      from: MaxUnavailable;
      maxUnavailable: MaxUnavailable;
      /** true: keep `from` in the DaemonSet's annotation; false: remove the annotation. */
      hold: boolean;
    };

export interface Step {
  title: string;
  /** null: nothing to write, only wait (a run resuming mid-migration, or a cluster still converging). */
  write: Write | null;
}

export type Plan =
  | {
      ok: true;
      steps: Step[];
      /** Which agent programs the IPIP routes through the switch, and why (cluster-routes.ts). */
      routes: RoutesPath;
    }
  | { ok: false; reason: string };

// The executor imports it from here; routing.ts owns it.
export { runningBackend } from "../shared/routing.js";

/**
 * What keeps the cluster from being at rest: rollout, readiness and tunnel addresses of the nodes calico-node
 * runs on. Empty when settled.
 */
export function unsettled(obs: ClusterObservation): string[] {
  const out: string[] = [];
  const r = obs.rollout;
  if (!r.observed || r.updated < r.desired || r.ready < r.desired)
    out.push(
      `calico-node rollout: ${r.updated}/${r.desired} updated, ${r.ready}/${r.desired} ready`,
    );
  const nodes = nodesToConverge(obs).converge;
  const notReady = nodes.filter((n) => !n.calicoNodeReady).map((n) => n.name);
  if (notReady.length) out.push(`calico-node not ready on ${someNames(notReady)}`);
  const missing = missingTunnels(obs.live.pools, nodes);
  if (missing.length) out.push(`tunnel address missing on ${someNames(missing)}`);
  return out;
}

/** The live pools with the target's modes. */
function poolsAfter(live: Live, target: Target): Pool[] {
  return live.pools.map((p) => {
    const t = target.pools.find((x) => x.name === p.name);
    return t ? { ...p, ipipMode: t.ipipMode, vxlanMode: t.vxlanMode } : p;
  });
}

/** Why calico_encap_migrate cannot reach the target from this cluster, or null. The check's migration hint asks it too. */
export function refusal(live: Live, target: Target): string | null {
  const finalPools = poolsAfter(live, target);
  for (const t of target.pools) {
    const pool = live.pools.find((p) => p.name === t.name);
    if (!pool)
      return live.pools.length > 0 && live.pools.every((p) => p.ipVersion === 6)
        ? `IPPool ${t.name} does not exist: the cluster has IPv6 pools only (${live.pools.map((p) => p.name).join(", ")}), and calico_encap_migrate cannot move an IPv6-only cluster (ipv4_stack: false): it moves an IPv4 pool, and the IPv6 pool only beside one.`
        : `IPPool ${t.name} does not exist; calico_encap_migrate changes pools, it never creates them.`;
    const violations = poolModeViolations({ ...t, ipVersion: pool.ipVersion });
    if (violations.length)
      return `IPPool ${t.name} ipipMode ${t.ipipMode}, vxlanMode ${t.vxlanMode}: Calico rejects it (${violations.join("; ")}).`;
  }
  const stranded = poolsStrandedBy(target.backend, finalPools);
  if (stranded.length) {
    const disabled = finalPools.filter((p) => p.disabled && stranded.includes(p.name));
    const hint = disabled.length
      ? ` ${disabled.map((p) => p.name).join(", ")} ${disabled.length > 1 ? "are" : "is"} disabled, but its blocks keep their pods and BIRD their routes: delete it once no pod uses it (calicoctl ipam show --show-blocks), then re-run.`
      : "";
    return `backend ${target.backend} runs no BIRD, but pool(s) ${stranded.join(", ")} would use IPIP or no encapsulation, whose routes BIRD distributes. Use backend bird, or VXLAN for those pools.${hint}`;
  }
  const env = live.nodeEnv;
  for (const encap of ENCAPSULATIONS) {
    const { env: key, envName: name } = FELIX_FLAG[encap];
    const value = env?.[key];
    const needed = poolsUsing(finalPools, encap).length > 0;
    if (value !== undefined && needed)
      if (!effectiveFlag({ ...live, pools: finalPools }, encap).enabled)
        return `the calico-node DaemonSet sets ${name}=${value}, which overrides FelixConfiguration: remove it before migrating.`;
  }
  const overridden = Object.entries(live.felixNodes)
    .filter(([, f]) => f.ipipEnabled !== undefined || f.vxlanEnabled !== undefined)
    .map(([n]) => `node.${n}`);
  if (overridden.length)
    return `FelixConfiguration ${overridden.join(", ")} set ipipEnabled or vxlanEnabled per node; calico_encap_migrate does not own them: remove those fields first.`;
  return null;
}

export function plan(obs: ClusterObservation, target: Target): Plan {
  const finalPools = poolsAfter(obs.live, target);
  const tunnelRefusal = (encap: TunnelEncap): string | null => {
    const cidr = tunnelPoolCidrOf(target, encap);
    return cidr === undefined
      ? null
      : tunnelPoolRefusal(cidr, obs.live.pools, target, obs.nodes, encap);
  };
  const refused =
    refusal(obs.live, target) ??
    ipipTunnelPoolRefusal(obs.live, target) ??
    tunnelRefusal("vxlan") ??
    tunnelRefusal("ipip");
  if (refused) return { ok: false, reason: refused };
  const routes = routesPath(obs.live, target);

  const steps: Step[] = [];
  const pending = unsettled(obs);
  if (pending.length)
    steps.push({ title: `Wait for the cluster to settle (${pending.join("; ")})`, write: null });

  // The projected cluster after each planned write.
  let backend = podsBackend(obs);
  let configured = runningBackend(obs.live);
  let felixDefault: FelixFlags = { ...obs.live.felixDefault };
  let pools = obs.live.pools;
  const felix = (): FelixInputs => ({ ...obs.live, pools, felixDefault });
  const needBgp = poolsNeedingBgp(finalPools).length > 0;
  const needIpip = poolsUsing(workloadPools(finalPools), "ipip").length > 0;
  const needVxlan = poolsUsing(workloadPools(finalPools), "vxlan").length > 0;

  const applied = obs.live.kubesprayApplied ? { applied: obs.live.kubesprayApplied } : {};
  const rollout = obs.rollout;
  let held = rollout.heldMaxUnavailable;
  let maxUnavailable = rollout.maxUnavailable;
  // Any switch of a non-BGP backend to bird, early (pools need BIRD) or last (VXLAN pools, target backend bird).
  const toBird = (needBgp || target.backend === "bird") && !backendRunsBgp(backend);
  if (
    toBird &&
    held === undefined &&
    rollout.maxUnavailable !== undefined &&
    !rollsAllAtOnce(rollout)
  ) {
    steps.push({
      title: `Let calico-node roll on every node at once (DaemonSet maxUnavailable ${ALL_AT_ONCE}, was ${showMaxUnavailable(rollout.maxUnavailable)}): a BIRD pod turns Ready only once its peers run BIRD too`,
      write: {
        kind: "rollout",
        from: rollout.maxUnavailable,
        maxUnavailable: ALL_AT_ONCE,
        hold: true,
      },
    });
    held = rollout.maxUnavailable;
    maxUnavailable = ALL_AT_ONCE;
  }
  if (needBgp && !backendRunsBgp(backend)) {
    steps.push({
      title:
        "Switch calico-config to backend bird and roll calico-node (BIRD must run and peer first)",
      write: { kind: "backend", from: backend, backend: "bird", ...applied },
    });
    backend = "bird";
    configured = "bird";
  }
  // Felix's path: both encapsulations explicitly on (IPIP carries the routes until the switch, VXLAN after it, or the
  // other way round), and programClusterRoutes, all in one write: Felix restarts once.
  const enable: {
    ipipEnabled?: boolean;
    vxlanEnabled?: boolean;
    programClusterRoutes?: "Enabled";
  } = {};
  const turnOn = (encap: "ipip" | "vxlan"): boolean =>
    routes.felix
      ? felixDefault[FELIX_FLAG[encap].field] !== true
      : !effectiveFlag(felix(), encap).enabled;
  if ((needIpip || routes.felix) && turnOn("ipip")) enable.ipipEnabled = true;
  if (needVxlan && turnOn("vxlan")) enable.vxlanEnabled = true;
  if (routes.felix && !clusterRoutesEnabled(felixDefault)) enable.programClusterRoutes = "Enabled";
  if (Object.keys(enable).length) {
    const fields = Object.entries(enable).map(([k, v]) => (v === true ? k : `${k}: ${v}`));
    steps.push({
      title: `Enable ${fields.join(" and ")} in FelixConfiguration default${enable.programClusterRoutes ? " (Felix restarts and programs the IPIP routes itself)" : ""}`,
      write: { kind: "felix", set: enable },
    });
    felixDefault = { ...felixDefault, ...enable };
  }
  const encaps: TunnelEncap[] = routes.felix ? ["vxlan", "ipip"] : ["vxlan"];
  for (const encap of encaps) {
    const created = tunnelPoolToCreate(pools, target, encap);
    if (!created) continue;
    const name = encap === "vxlan" ? "VXLAN" : "IPIP";
    steps.push({
      title: `Create IPPool ${created.name} (${created.cidr}, ${name}, Tunnel only) and wait until every node has its ${name} tunnel address from it`,
      write: {
        kind: "tunnelPool",
        pool: created.name,
        cidr: created.cidr,
        nodeSelector: created.nodeSelector,
        encap,
      },
    });
    pools = [...pools, created];
  }
  for (const t of target.pools) {
    const pool = pools.find((p) => p.name === t.name);
    if (!pool || (pool.ipipMode === t.ipipMode && pool.vxlanMode === t.vxlanMode)) continue;
    steps.push({
      title: `Switch IPPool ${t.name} to ipipMode ${t.ipipMode}, vxlanMode ${t.vxlanMode} and wait for every node's tunnel address`,
      write: {
        kind: "pool",
        pool: t.name,
        from: { ipipMode: pool.ipipMode, vxlanMode: pool.vxlanMode },
        set: { ipipMode: t.ipipMode, vxlanMode: t.vxlanMode },
      },
    });
    pools = pools.map((p) =>
      p.name === t.name ? { ...p, ipipMode: t.ipipMode, vxlanMode: t.vxlanMode } : p,
    );
  }
  // An encapsulation no pool uses any more is turned off with an explicit false, the value Kubespray's "Set kubespray
  // FelixConfiguration" task writes on every run (calico_ipip_mode != 'Never'): unsetting it instead would let
  // Kubespray's next run change the field, and every Felix restart with it. Only an explicit true is turned off; an
  // unset flag is left as it is.
  // programClusterRoutes once no IPIP pool needs it: unset, as Kubespray leaves it (it never renders the field), in the
  // same write, so Felix restarts once; only where BIRD takes the routes back (Calico before v3.32: from v3.32
  // BGPConfiguration may leave the cluster routes to Felix alone, cluster-routes.ts).
  const off: { ipipEnabled?: false; vxlanEnabled?: false; programClusterRoutes?: null } = {};
  if (!needIpip && felixDefault.ipipEnabled === true) off.ipipEnabled = false;
  if (!needVxlan && felixDefault.vxlanEnabled === true) off.vxlanEnabled = false;
  if (
    poolsNeedingClusterRoutes(finalPools).length === 0 &&
    clusterRoutesEnabled(felixDefault) &&
    birdKeepsClusterRoutes(obs.live.calicoVersion)
  )
    off.programClusterRoutes = null;
  if (Object.keys(off).length)
    steps.push({
      title: `Turn off ${Object.keys(off).join(" and ")} in FelixConfiguration default (no pool uses it; ${off.programClusterRoutes === null ? "programClusterRoutes unset, as Kubespray leaves it; " : ""}false, as Kubespray writes it)`,
      write: { kind: "felix", set: off },
    });
  if (target.backend !== backend || target.backend !== configured)
    steps.push({
      title: `Switch calico-config to backend ${target.backend} and roll calico-node`,
      write: { kind: "backend", from: backend, backend: target.backend, ...applied },
    });
  if (held !== undefined)
    steps.push({
      title: `Restore the calico-node DaemonSet's maxUnavailable to ${showMaxUnavailable(held)}`,
      write: {
        kind: "rollout",
        from: maxUnavailable ?? null,
        maxUnavailable: held,
        hold: false,
      },
    });
  return { ok: true, steps, routes };
}
