// calico_pool_check's decision, pure: inventory options and the live cluster in, the module's result out.

import { compare } from "./compare.js";
import { effectiveFlag, nodeOverrides } from "../shared/felix.js";
import { describe } from "./findings.js";
import type { InventoryOptions } from "../shared/kubespray.js";
import { desiredFromInventory } from "../shared/kubespray.js";
import type { CalicoPoolCheckResult } from "../../generated/calico_pool_check.result.js";
import type { MigrationHint } from "./migration.js";
import { migrationHint, tunnelPoolHints } from "./migration.js";
import type { Desired, DesiredPool, Finding, Live, Pool } from "../shared/model.js";
import { pinVars, pinVarsYaml } from "./pin.js";
import { configuredBackend } from "../shared/routing.js";

/** The module's result, typed from schemas/calico_pool_check.result.json. */
export type CheckOutcome = CalicoPoolCheckResult & { changed: false; warnings: string[] };
export type PoolSummary = CheckOutcome["cluster"]["pools"][number];

function summary(p: Pool | DesiredPool): PoolSummary {
  return {
    name: p.name,
    cidr: p.cidr,
    ip_version: p.ipVersion,
    block_size: p.blockSize,
    ipip_mode: p.ipipMode,
    vxlan_mode: p.vxlanMode,
    nat_outgoing: p.natOutgoing,
    disabled: "disabled" in p ? p.disabled : false,
    node_selector: "nodeSelector" in p ? p.nodeSelector : "all()",
  };
}

function clusterSummary(live: Live): CheckOutcome["cluster"] {
  const inputs = { ...live };
  return {
    calico_installed: live.calicoInstalled,
    reason: live.reason,
    client: live.client,
    calico_version: live.calicoVersion,
    backend: configuredBackend(live),
    pools: live.pools.map(summary),
    felix: {
      ipip: effectiveFlag(inputs, "ipip"),
      vxlan: effectiveFlag(inputs, "vxlan"),
      node_overrides: [
        ...new Set([...nodeOverrides(inputs, "ipip"), ...nodeOverrides(inputs, "vxlan")]),
      ].sort(),
    },
  };
}

/**
 * One line per field the blocking findings name: its comparison (the finding with the live value, where one has it)
 * and why it blocks. Several rules may name one field (the backend differs, and the inventory's pools need BIRD);
 * every finding stays in the result's findings.
 */
function fieldLines(blocking: readonly Finding[]): string[] {
  const byField = new Map<string, Finding[]>();
  for (const f of blocking) {
    const key = `${f.object} ${f.field}`;
    byField.set(key, [...(byField.get(key) ?? []), f]);
  }
  return [...byField.values()].map((group) => {
    const primary = group.find((f) => f.live !== null && f.live !== undefined) ?? group[0];
    return primary ? `- ${describe(primary)}. ${primary.why}` : "";
  });
}

function message(
  live: Live,
  blocking: Finding[],
  failing: boolean,
  pins: string,
  hint: MigrationHint,
): string {
  if (!live.calicoInstalled) {
    const head = `Calico is not installed yet (${live.reason}); nothing to compare.`;
    if (blocking.length === 0) return head;
    const lines = blocking.map((f) => `- ${describe(f)}: ${f.why}`).join("\n");
    return live.nodeEnv === null
      ? `${head} The inventory itself is invalid:\n${lines}`
      : `calico-node is deployed, but ${live.client} found no Calico objects (${live.reason}):\n${lines}`;
  }
  if (blocking.length === 0) return "The inventory matches the live Calico configuration.";
  const lines = [
    failing
      ? "The inventory does not match the live Calico configuration; applying it would break pod networking or fail half-way:"
      : "The inventory does not match the live Calico configuration (reported as warnings, fail_on_mismatch is false):",
    ...fieldLines(blocking),
    `To keep today's behaviour, set in the inventory (group_vars/k8s_cluster/k8s-net-calico.yml):\n${pins.replace(/^/gm, "  ")}`,
    hint.possible
      ? `To migrate instead, run ${hint.module} with ${JSON.stringify(hint.args)} before the upgrade, then keep the inventory as it is.${tunnelPoolHints(hint, String(hint.args.pool_name))}`
      : `Migration: ${hint.reason}`,
  ];
  return lines.join("\n");
}

export function checkPools(
  options: InventoryOptions & { fail_on_mismatch: boolean },
  live: Live,
): CheckOutcome {
  const desired: Desired = desiredFromInventory(options);
  const findings = compare(desired, live);
  const blocking = findings.filter((f) => f.severity === "blocking");
  const failing = options.fail_on_mismatch && blocking.length > 0;
  const pins = pinVars(live, desired);
  const migration = migrationHint(live, desired, findings);
  const warnings = findings
    .filter((f) => f.severity === "warning" || !options.fail_on_mismatch)
    .map((f) => `${describe(f)}. ${f.why} ${f.remedy}`);
  if (!live.calicoInstalled && /not installed \(|does not exist \(/.test(live.reason))
    warnings.push(
      `Treated as a cluster without Calico because ${live.reason}. If this cluster already runs Calico, the paths are wrong: set calicoctl_path, kubectl_path or kubeconfig.`,
    );
  return {
    changed: false,
    failed: failing,
    msg: message(live, blocking, failing, pinVarsYaml(pins), migration),
    warnings,
    findings,
    pin_vars: pins,
    migration,
    cluster: clusterSummary(live),
    inventory: { backend: desired.backend, pools: desired.pools.map(summary) },
  };
}
