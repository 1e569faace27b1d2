// pin_vars: the inventory lines that keep today's cluster exactly as it is.

import { liveBackend, managedPool } from "./compare.js";
import { kubesprayVariable, POOL_OPTIONS } from "./kubespray.js";
import type { Desired, Live } from "./model.js";

export function pinVars(live: Live, desired: Desired): Record<string, string | number | boolean> {
  if (!live.calicoInstalled) return {};
  const vars: Record<string, string | number | boolean> = {};
  for (const version of [4, 6] as const) {
    const want = desired.pools.find((p) => p.ipVersion === version);
    const name = want?.name ?? live.pools.find((p) => p.ipVersion === version)?.name;
    if (name === undefined) continue;
    const pool = managedPool(live, { name, ipVersion: version });
    if (!pool) continue;
    const opts = POOL_OPTIONS[version];
    if (version === 4) vars[kubesprayVariable("pool_name")] = pool.name;
    vars[kubesprayVariable(opts.cidr)] = pool.cidr;
    vars[kubesprayVariable(opts.blockSize)] = pool.blockSize;
    vars[kubesprayVariable(opts.ipipMode)] = pool.ipipMode;
    vars[kubesprayVariable(opts.vxlanMode)] = pool.vxlanMode;
    vars[kubesprayVariable(opts.natOutgoing)] = pool.natOutgoing;
  }
  vars[kubesprayVariable("network_backend")] = liveBackend(live) ?? "bird";
  return vars;
}

/** pin_vars as YAML lines for group_vars/k8s_cluster/k8s-net-calico.yml. */
export function pinVarsYaml(vars: Record<string, string | number | boolean>): string {
  return Object.entries(vars)
    .map(
      ([k, v]) =>
        `${k}: ${typeof v === "string" && /[:#{}[\],&*?|<>=!%@`'"]/.test(v) ? JSON.stringify(v) : String(v)}`,
    )
    .join("\n");
}
