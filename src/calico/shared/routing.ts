// Which backend calico-node runs, and which pools need BGP: the one answer the check, the planner, the migration
// hint and the diff share (reference/calico.md, "Routing ownership"). Felix programs VXLAN routes itself, for
// IPv4 and IPv6 pools alike; BIRD distributes every other pool's routes: IPIP pools, and pools without
// encapsulation of either IP family (Kubespray 2.18's calico_vxlan_mode_ipv6: Never is one).

import type { Backend, EncapMode, Live } from "./model.js";
import { BACKENDS, isOn } from "./model.js";
import type { ClusterObservation } from "./observation.js";
import { backendRunsBgp } from "./rules.js";
import { isTunnelOnly } from "./tunnel-pool.js";

/**
 * The backend calico-node's configuration names: a literal CALICO_NETWORKING_BACKEND in the pod template, else
 * calico_backend in calico-config; null when neither names one (calico-node then starts with bird).
 */
export function configuredBackend(live: Live): string | null {
  return live.nodeEnv?.networkingBackend ?? live.configMapBackend;
}

/**
 * The backend calico-node pods run with. calico-node reads it only when a pod starts, and only a change of the pod
 * template restarts the pods: when the template is rendered for another backend than the configuration names
 * (templateBackend, from the DaemonSet), a switch was interrupted between its two writes and the pods still run
 * the template's. Unset means bird.
 */
export function runningBackend(live: Live, templateBackend: Backend | null = null): string {
  const configured = configuredBackend(live) ?? "bird";
  return templateBackend !== null && templateBackend !== configured ? templateBackend : configured;
}

/**
 * The backend an observed cluster's calico-node pods run: the one answer the planner, the rollback's target and
 * the reported states share (an interrupted switch: the template's, whatever calico-config says).
 */
export function podsBackend(obs: Pick<ClusterObservation, "live" | "rollout">): string {
  return runningBackend(obs.live, obs.rollout.templateBackend);
}

/** A backend name as a Backend; anything else is an error that names it, never a cast. */
export function asBackend(name: string): Backend {
  const known = BACKENDS.find((b) => b === name);
  if (known === undefined)
    throw new Error(
      `calico-node's backend '${name}' is none of ${BACKENDS.join(", ")}: set calico_backend in ConfigMap kube-system/calico-config to one of them`,
    );
  return known;
}

export interface RoutedPool {
  name: string;
  ipipMode: EncapMode;
  vxlanMode: EncapMode;
  disabled?: boolean;
  /** allowedUses; unset (an inventory's pool) is Calico's default, Workload and Tunnel. */
  allowedUses?: readonly string[];
}

/**
 * Whether BIRD distributes routes the pool's pods need: IPIP, or no encapsulation at all (either IP family). A
 * disabled pool too: `disabled` only stops new allocations, its blocks keep their pods, and confd's BIRD filters
 * export every pool's routes but those of disableBGPExport pools (Calico v3.31.0, confd bird_ipam.cfg.template,
 * reject_disabled_pools() tests disableBGPExport only). A Tunnel-only pool holds no pod (tunnel-pool.ts): its
 * tunnel addresses serve only the tunnels of workload pools, which answer for themselves, and the ones
 * calico_encap_migrate creates have disableBGPExport, so BIRD distributes nothing of them anyway. The IPIP tunnel
 * pool the way out of VXLAN leaves is one: it must not keep the way back from backend vxlan.
 */
export function needsBgp(pool: RoutedPool): boolean {
  if (isTunnelOnly(pool)) return false;
  return isOn(pool.ipipMode) || !isOn(pool.vxlanMode);
}

/** Names of the pools whose routes only BIRD distributes. */
export function poolsNeedingBgp(pools: readonly RoutedPool[]): string[] {
  return pools.filter(needsBgp).map((p) => p.name);
}

/** Pools that would have no route under this backend (it runs no BIRD and they need it); empty when routed. */
export function poolsStrandedBy(backend: string | null, pools: readonly RoutedPool[]): string[] {
  return backendRunsBgp(backend) ? [] : poolsNeedingBgp(pools);
}
