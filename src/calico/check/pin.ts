// pin_vars: the inventory lines that keep today's cluster exactly as it is.

import { managedPool } from "./pool-findings.js";
import { liveDatastore, liveFamily } from "../shared/deployment.js";
import { kubesprayVariable, POOL_OPTIONS } from "../shared/kubespray.js";
import type { Desired, Live } from "../shared/model.js";
import { runningBackend } from "../shared/routing.js";

type Pins = Record<string, string | number | boolean>;

/** calico_datastore, ipv4_stack and ipv6_stack as the cluster has them, when they differ from the inventory or from
 *  Kubespray's defaults (kdd, true, false). */
function deploymentPins(live: Live, desired: Desired): Pins {
  const vars: Pins = {};
  const datastore = liveDatastore(live)?.value;
  if (datastore !== undefined && (datastore !== desired.datastore || datastore !== "kdd"))
    vars[kubesprayVariable("datastore")] = datastore;
  if (!live.calicoInstalled) return vars;
  for (const [version, option, kubesprayDefault] of [
    [4, "ipv4_stack", true],
    [6, "ipv6_stack", false],
  ] as const) {
    const has = liveFamily(live, version).pools.length > 0;
    const asked = desired.pools.some((p) => p.ipVersion === version);
    if (has !== asked || has !== kubesprayDefault) vars[kubesprayVariable(option)] = has;
  }
  return vars;
}

export function pinVars(live: Live, desired: Desired): Pins {
  const vars = deploymentPins(live, desired);
  if (!live.calicoInstalled) return vars;
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
  vars[kubesprayVariable("network_backend")] = runningBackend(live);
  return vars;
}

/** pin_vars as YAML lines for group_vars/k8s_cluster/k8s-net-calico.yml. */
export function pinVarsYaml(vars: Pins): string {
  return Object.entries(vars)
    .map(
      ([k, v]) =>
        `${k}: ${typeof v === "string" && /[:#{}[\],&*?|<>=!%@`'"]/.test(v) ? JSON.stringify(v) : String(v)}`,
    )
    .join("\n");
}
