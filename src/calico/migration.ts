// The migration hint: can calico_encap_migrate move the live cluster to what the inventory asks?

import type { Desired, Finding, Live } from "./model.js";

export interface MigrationHint {
  needed: boolean;
  possible: boolean;
  reason: string;
  module: string;
  args: Record<string, unknown>;
}

const IMMUTABLE = new Set(["pool.cidr", "pool.blockSize"]);
const ENCAPSULATION_FINDINGS = new Set(["pool.ipipMode", "pool.vxlanMode", "backend"]);
/** Findings that stop calico_encap_migrate: no pool to move, or a target Calico cannot run. */
const UNMIGRATABLE = new Set([
  "pool.missing",
  "pool.name",
  "inventory.bothEncapsulations",
  "inventory.ipipOnIpv6",
  "inventory.ipipWithoutBird",
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
  const base = { module: "calico_encap_migrate", args };
  if (!live.calicoInstalled)
    return {
      ...base,
      needed: false,
      possible: false,
      reason: "Calico is not installed yet: Kubespray installs it as the inventory says.",
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
  if (blockers.length > 0)
    return {
      ...base,
      needed,
      possible: false,
      reason: `Fix these first, a migration cannot change them: ${blockers.map((f) => `${f.object} ${f.field}`).join("; ")}.`,
    };
  const immutable = findings.filter((f) => IMMUTABLE.has(f.id));
  const keep = immutable.length
    ? ` It does not change ${immutable.map((f) => `${f.object} ${f.field}`).join(", ")} (immutable): keep ${immutable.map((f) => `${f.variable}: ${String(f.live)}`).join(", ")} in the inventory.`
    : "";
  return {
    ...base,
    needed,
    possible: true,
    reason: `Run ${base.module} with these args before the upgrade; it moves the cluster without dropping traffic and can be re-run.${keep}`,
  };
}
