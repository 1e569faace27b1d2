// The migration hint: can calico_encap_migrate move the live cluster to what the inventory asks?

import { targetFromOptions } from "../shared/kubespray.js";
import type { Desired, Finding, Live } from "../shared/model.js";
import { refusal } from "../plan/plan.js";
import { poolEntering, tunnelPoolAdvice } from "../shared/tunnel-pool.js";
import { ipipTunnelPoolAdvice, ipipTunnelPoolApplies } from "../shared/cluster-routes.js";

/** The tunnel pool options that apply to the hint's migration of a pool, in the hint's words ("" when none). */
export function tunnelPoolHints(
  hint: Pick<MigrationHint, "tunnel_pool_cidr_applies" | "ipip_tunnel_pool_cidr_applies">,
  pool: string,
): string {
  return [
    ...(hint.tunnel_pool_cidr_applies ? [tunnelPoolAdvice(pool)] : []),
    ...(hint.ipip_tunnel_pool_cidr_applies ? [ipipTunnelPoolAdvice(pool)] : []),
  ]
    .map((s) => ` ${s}`)
    .join("");
}

export interface MigrationHint {
  needed: boolean;
  possible: boolean;
  reason: string;
  module: string;
  args: Record<string, unknown>;
  /** A pool moves into VXLAN: tunnel_pool_cidr applies (the args leave it out, the network is the user's). */
  tunnel_pool_cidr_applies: boolean;
  /** A pool moves from VXLAN into IPIP on Calico >= 3.31: ipip_tunnel_pool_cidr applies (cluster-routes.ts). */
  ipip_tunnel_pool_cidr_applies: boolean;
}

const IMMUTABLE = new Set(["pool.cidr", "pool.blockSize"]);
const ENCAPSULATION_FINDINGS = new Set(["pool.ipipMode", "pool.vxlanMode", "backend"]);
/** Findings that stop calico_encap_migrate: no pool to move, a target Calico cannot run, or an inventory that
 *  describes another cluster (datastore, IP families). */
const UNMIGRATABLE = new Set([
  "pool.missing",
  "pool.name",
  "inventory.bothEncapsulations",
  "inventory.ipipOnIpv6",
  "inventory.needsBird",
  "datastore",
  "datastore.unread",
  "stack.ipv4",
  "stack.ipv6",
]);

export function migrationHint(
  live: Live,
  desired: Desired,
  findings: readonly Finding[],
): MigrationHint {
  const v4 = desired.pools.find((p) => p.ipVersion === 4);
  const v6 = desired.pools.find((p) => p.ipVersion === 6);
  const args: Record<string, unknown> = { network_backend: desired.backend };
  if (v4)
    Object.assign(args, { pool_name: v4.name, ipip_mode: v4.ipipMode, vxlan_mode: v4.vxlanMode });
  if (v6) Object.assign(args, { ipv6_stack: true, vxlan_mode_ipv6: v6.vxlanMode });
  const base = {
    module: "calico_encap_migrate",
    args,
    tunnel_pool_cidr_applies: false,
    ipip_tunnel_pool_cidr_applies: false,
  };
  if (!live.calicoInstalled)
    return {
      ...base,
      needed: false,
      possible: false,
      reason:
        live.nodeEnv === null
          ? "Calico is not installed yet: Kubespray installs it as the inventory says."
          : "calico-node is deployed but its Calico objects were not read: fix the datastore settings first.",
    };
  const needed = findings.some((f) => ENCAPSULATION_FINDINGS.has(f.id));
  const blockers = findings.filter((f) => UNMIGRATABLE.has(f.id) && f.severity === "blocking");
  if (!needed)
    return {
      ...base,
      needed: false,
      possible: false,
      reason: "The encapsulation and backend already match the inventory.",
    };
  const invalid = blockers.filter((f) => f.id.startsWith("inventory."));
  if (invalid.length > 0)
    return {
      ...base,
      needed,
      possible: false,
      reason: `The inventory asks for a configuration Calico cannot run, so there is nothing to migrate to: ${invalid.map((f) => `${f.why} ${f.remedy}`).join(" ")}`,
    };
  if (blockers.length > 0)
    return {
      ...base,
      needed,
      possible: false,
      reason: `Fix these first, a migration cannot change them: ${blockers.map((f) => `${f.object} ${f.field}`).join("; ")}.`,
    };
  if (!v4)
    return {
      ...base,
      needed,
      possible: false,
      reason: `${base.module} cannot move an IPv6-only cluster (ipv4_stack: false): it moves an IPv4 pool, and the IPv6 pool only beside one (ipv6_stack). Keep today's behaviour with the inventory lines above, or change the IPv6 pool's vxlanMode and calico-config's calico_backend by hand.`,
    };
  // The planner's own answer, so the hint never calls possible what calico_encap_migrate refuses.
  const target = targetFromOptions({
    ipip_mode: v4.ipipMode,
    vxlan_mode: v4.vxlanMode,
    network_backend: desired.backend,
    pool_name: v4.name,
    extra_pools: [],
    ipv6_stack: v6 !== undefined,
    vxlan_mode_ipv6: v6?.vxlanMode ?? "Never",
  });
  const refused = refusal(live, target);
  if (refused)
    return { ...base, needed, possible: false, reason: `${base.module} would refuse: ${refused}` };
  const immutable = findings.filter((f) => IMMUTABLE.has(f.id));
  const keep = immutable.length
    ? ` It does not change ${immutable.map((f) => `${f.object} ${f.field}`).join(", ")} (immutable): keep ${immutable.map((f) => `${f.variable}: ${String(f.live)}`).join(", ")} in the inventory.`
    : "";
  const entering = poolEntering(live.pools, target.pools, "vxlan");
  const intoIpip = ipipTunnelPoolApplies(live, target);
  const applies = {
    tunnel_pool_cidr_applies: entering !== null,
    ipip_tunnel_pool_cidr_applies: intoIpip !== null,
  };
  const pool = entering?.pool.name ?? intoIpip ?? "";
  return {
    ...base,
    needed,
    possible: true,
    ...applies,
    reason: `Run ${base.module} with these args before the upgrade, then keep the inventory as it is. It moves the cluster one step at a time and can be re-run.${tunnelPoolHints(applies, pool)}${keep}`,
  };
}
