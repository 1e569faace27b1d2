// The migration target from the module's options (Kubespray's variables), and the summaries it reports. Pure.

import { ipv6PoolName } from "../calico/kubespray.js";
import type { Backend, EncapMode } from "../calico/model.js";
import type { ClusterObservation, Target } from "../calico/observation.js";
import { runningBackend } from "../calico/plan.js";

export interface TargetOptions {
  ipip_mode: EncapMode;
  vxlan_mode: EncapMode;
  network_backend: Backend;
  pool_name: string;
  extra_pools: string[];
  ipv6_stack: boolean;
  vxlan_mode_ipv6: EncapMode;
}

export function targetFromOptions(o: TargetOptions): Target {
  const v4 = [o.pool_name, ...o.extra_pools.filter((n) => n !== o.pool_name)].map((name) => ({
    name,
    ipipMode: o.ipip_mode,
    vxlanMode: o.vxlan_mode,
  }));
  const v6 = o.ipv6_stack
    ? [
        {
          name: ipv6PoolName(o.pool_name),
          ipipMode: "Never" as const,
          vxlanMode: o.vxlan_mode_ipv6,
        },
      ]
    : [];
  return { pools: [...v4, ...v6], backend: o.network_backend };
}

export interface StateSummary {
  pools: { name: string; ipip_mode: string; vxlan_mode: string }[];
  backend: string;
}

export function summarize(obs: ClusterObservation, names: readonly string[]): StateSummary {
  return {
    pools: obs.live.pools
      .filter((p) => names.includes(p.name))
      .map((p) => ({ name: p.name, ipip_mode: p.ipipMode, vxlan_mode: p.vxlanMode })),
    backend: runningBackend(obs.live),
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
