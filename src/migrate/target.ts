// The states calico_encap_migrate reports (migrated_from, migrated_to) and its MTU note. Pure.

import type { ClusterObservation, Target } from "../calico/shared/observation.js";
import { podsBackend } from "../calico/shared/routing.js";

export interface StateSummary {
  pools: { name: string; ipip_mode: string; vxlan_mode: string }[];
  backend: string;
}

export function summarize(obs: ClusterObservation, names: readonly string[]): StateSummary {
  return {
    pools: obs.live.pools
      .filter((p) => names.includes(p.name))
      .map((p) => ({ name: p.name, ipip_mode: p.ipipMode, vxlan_mode: p.vxlanMode })),
    backend: podsBackend(obs),
  };
}

export function summarizeTarget(t: Target): StateSummary {
  return {
    pools: t.pools.map((p) => ({ name: p.name, ipip_mode: p.ipipMode, vxlan_mode: p.vxlanMode })),
    backend: t.backend,
  };
}

/** The MTU note (reference/calico.md): existing pods keep their MTU until restarted. */
export function mtuWarning(from: StateSummary, to: StateSummary): string | null {
  const encap = (s: StateSummary) => s.pools.map((p) => `${p.ipip_mode}/${p.vxlan_mode}`).join(",");
  if (encap(from) === encap(to)) return null;
  return "The encapsulation changed: pods that were running keep the MTU they started with until they are restarted (VXLAN costs 50 bytes on IPv4 and 70 on IPv6, IP-in-IP 20). Restart workloads at a convenient time so they pick up the new MTU.";
}

/**
 * What the result's message adds after a move from backend bird to vxlan: `calicoctl node status` then says that no
 * BGP backend process runs and lists no peers. Expected (Felix routes VXLAN itself, no BIRD runs), but it reads like
 * the outage users fear.
 */
export function bgpGoneNote(from: StateSummary, to: StateSummary): string | null {
  return from.backend === "bird" && to.backend === "vxlan"
    ? " With backend vxlan no BIRD runs: `calicoctl node status` now says the BGP backend process is not running and lists no peers; that is expected, Felix routes VXLAN itself."
    : null;
}
