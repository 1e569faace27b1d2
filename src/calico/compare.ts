// The preflight comparison: the inventory (after Kubespray's defaults) against the live cluster.
// Pure: Live and Desired in, findings out.

import type { ClusterState, Problem } from "./consistency.js";
import { routeProblems } from "./consistency.js";
import { cidrsOverlap, sameCidr } from "./cidr.js";
import { finding } from "./findings.js";
import { kubesprayVariable, POOL_OPTIONS } from "./kubespray.js";
import type { Desired, DesiredPool, Finding, Live, Pool } from "./model.js";
import { isOn } from "./model.js";
import { backendRunsBgp, IMMUTABLE_POOL_FIELDS, poolModeViolations } from "./rules.js";

const CONFIGMAP = "ConfigMap kube-system/calico-config";
const MIGRATE = "calico_encap_migrate";

/** The backend calico-node pods run with: a literal env value wins over the ConfigMap; unset means bird. */
export function liveBackend(live: Live): string | null {
  return live.nodeEnv?.networkingBackend ?? live.configMapBackend;
}

/** The live pool Kubespray manages for a desired pool: same name, else the only pool of that IP version. */
export function managedPool(
  live: Live,
  want: { name: string; ipVersion: 4 | 6 },
): Pool | undefined {
  const byName = live.pools.find((p) => p.name === want.name);
  if (byName) return byName;
  const sameVersion = live.pools.filter((p) => p.ipVersion === want.ipVersion);
  return sameVersion.length === 1 ? sameVersion[0] : undefined;
}

function inventoryFindings(desired: Desired): Finding[] {
  const out: Finding[] = [];
  for (const pool of desired.pools) {
    const opts = POOL_OPTIONS[pool.ipVersion];
    for (const violation of poolModeViolations(pool)) {
      const ipv6Ipip = pool.ipVersion === 6 && isOn(pool.ipipMode);
      out.push(
        finding(
          ipv6Ipip ? "inventory.ipipOnIpv6" : "inventory.bothEncapsulations",
          `IPPool/${pool.name}`,
          ipv6Ipip ? "spec.ipipMode" : "spec.ipipMode, spec.vxlanMode",
          null,
          ipv6Ipip ? pool.ipipMode : { ipipMode: pool.ipipMode, vxlanMode: pool.vxlanMode },
          ipv6Ipip
            ? kubesprayVariable(opts.ipipMode)
            : `${kubesprayVariable(opts.ipipMode)}, ${kubesprayVariable(opts.vxlanMode)}`,
          "blocking",
          `Calico rejects this pool: "${violation}".`,
          ipv6Ipip
            ? `Set ${kubesprayVariable(opts.ipipMode)}: Never (IPv6 pools can use VXLAN).`
            : `Set one of ${kubesprayVariable(opts.ipipMode)} and ${kubesprayVariable(opts.vxlanMode)} to Never.`,
        ),
      );
    }
    if (isOn(pool.ipipMode) && !backendRunsBgp(desired.backend)) {
      out.push(
        finding(
          "inventory.ipipWithoutBird",
          CONFIGMAP,
          "data.calico_backend",
          null,
          desired.backend,
          kubesprayVariable("network_backend"),
          "blocking",
          `IPIP pool ${pool.name} needs BIRD to distribute its routes, and backend ${desired.backend} runs no BIRD.`,
          `Set calico_network_backend: bird, or use VXLAN (${kubesprayVariable(opts.ipipMode)}: Never, ${kubesprayVariable(opts.vxlanMode)}: Always).`,
        ),
      );
    }
  }
  return out;
}

function encapsulationWhy(live: Live, desired: Desired): string {
  return (
    `Kubespray would patch the pool in place and roll calico-node with backend ${desired.backend} in the same run, ` +
    `so cross-node pod traffic drops until every node has its new tunnel address and routes ` +
    `(Kubespray issue #8691; the live backend is ${String(liveBackend(live) ?? "bird")}).`
  );
}

function migrateRemedy(variable: string, liveValue: unknown): string {
  return (
    `To keep today's behaviour, set ${variable}: ${String(liveValue)}. ` +
    `To change it, run ${MIGRATE} first (it moves pools, Felix and the backend in an order that keeps every node routed), then set the inventory to match.`
  );
}

function poolFindings(live: Live, want: DesiredPool, desired: Desired): Finding[] {
  const opts = POOL_OPTIONS[want.ipVersion];
  const have = managedPool(live, want);
  if (!have) {
    const overlapping = live.pools
      .filter((p) => cidrsOverlap(p.cidr, want.cidr))
      .map((p) => p.name);
    return [
      finding(
        "pool.missing",
        `IPPool/${want.name}`,
        "metadata.name",
        null,
        want.name,
        kubesprayVariable("pool_name"),
        overlapping.length > 0 ? "blocking" : "warning",
        overlapping.length > 0
          ? `Kubespray would create pool ${want.name} with cidr ${want.cidr}, which overlaps live pool(s) ${overlapping.join(", ")}: Calico refuses the create and the play fails half-way.`
          : `Kubespray will create a new pool ${want.name} (${want.cidr}) beside the live pools (${live.pools.map((p) => p.name).join(", ") || "none"}).`,
        overlapping.length > 0
          ? `Set ${kubesprayVariable("pool_name")} and ${kubesprayVariable(opts.cidr)} to the live pool's values (${overlapping.join(", ")}).`
          : `Nothing, if a new pool is intended; otherwise set ${kubesprayVariable("pool_name")} to the live pool's name.`,
      ),
    ];
  }
  const object = `IPPool/${have.name}`;
  const out: Finding[] = [];
  if (have.name !== want.name)
    out.push(
      finding(
        "pool.name",
        object,
        "metadata.name",
        have.name,
        want.name,
        kubesprayVariable("pool_name"),
        "blocking",
        `The cluster's only IPv${want.ipVersion} pool is ${have.name}; Kubespray would create a second pool ${want.name} instead of managing it.`,
        `Set ${kubesprayVariable("pool_name")}: ${have.name}.`,
      ),
    );
  if (!sameCidr(have.cidr, want.cidr))
    out.push(
      finding(
        "pool.cidr",
        object,
        "spec.cidr",
        have.cidr,
        want.cidr,
        kubesprayVariable(opts.cidr),
        "blocking",
        `Calico refuses to change it ("${IMMUTABLE_POOL_FIELDS.cidr}"), so Kubespray's pool update fails half-way through the play.`,
        `Set ${kubesprayVariable(opts.cidr)}: ${have.cidr}. Changing a pool's CIDR takes a new pool and draining the old one, not an inventory change.`,
      ),
    );
  if (have.blockSize !== want.blockSize)
    out.push(
      finding(
        "pool.blockSize",
        object,
        "spec.blockSize",
        have.blockSize,
        want.blockSize,
        kubesprayVariable(opts.blockSize),
        "blocking",
        `Calico refuses to change it ("${IMMUTABLE_POOL_FIELDS.blockSize}").`,
        `Set ${kubesprayVariable(opts.blockSize)}: ${have.blockSize}. Changing it takes a new pool and draining the old one.`,
      ),
    );
  for (const field of ["ipipMode", "vxlanMode"] as const) {
    if (have[field] !== want[field])
      out.push(
        finding(
          `pool.${field}`,
          object,
          `spec.${field}`,
          have[field],
          want[field],
          kubesprayVariable(opts[field]),
          "blocking",
          encapsulationWhy(live, desired),
          migrateRemedy(kubesprayVariable(opts[field]), have[field]),
        ),
      );
  }
  if (have.natOutgoing !== want.natOutgoing)
    out.push(
      finding(
        "pool.natOutgoing",
        object,
        "spec.natOutgoing",
        have.natOutgoing,
        want.natOutgoing,
        kubesprayVariable(opts.natOutgoing),
        "warning",
        want.natOutgoing
          ? `Kubespray will turn natOutgoing on: pods' traffic leaving the pool will be SNATed to the node's address.`
          : `Kubespray will turn natOutgoing off: pods' traffic to addresses outside the cluster is no longer SNATed and may find no way back.`,
        `If unintended, set ${kubesprayVariable(opts.natOutgoing)}: ${String(have.natOutgoing)}.`,
      ),
    );
  return out;
}

function backendFindings(live: Live, desired: Desired): Finding[] {
  const have = liveBackend(live);
  if (have === null) {
    return [
      finding(
        "backend.unknown",
        CONFIGMAP,
        "data.calico_backend",
        null,
        desired.backend,
        kubesprayVariable("network_backend"),
        "warning",
        "The ConfigMap or its calico_backend key is missing, so calico-node starts with its built-in default (bird).",
        `Check the calico-node DaemonSet; to keep BGP, set ${kubesprayVariable("network_backend")}: bird.`,
      ),
    ];
  }
  if (have === desired.backend) return [];
  const ipipLive = live.pools.some((p) => !p.disabled && isOn(p.ipipMode));
  const why =
    backendRunsBgp(have) && !backendRunsBgp(desired.backend) && ipipLive
      ? `calico-node would restart without BIRD while IPIP pools are live: the BGP routes IPIP depends on vanish and cross-node pod traffic stops (the 2022 upgrade break, Kubespray issue #8691).`
      : `calico-node reads the backend only when a pod starts, so Kubespray's change rolls calico-node on every node with ${desired.backend === "bird" ? "BIRD starting" : "BIRD stopping"}; routes change while pools keep their encapsulation.`;
  return [
    finding(
      "backend",
      CONFIGMAP,
      "data.calico_backend",
      have,
      desired.backend,
      kubesprayVariable("network_backend"),
      "blocking",
      why,
      migrateRemedy(kubesprayVariable("network_backend"), have),
    ),
  ];
}

/** The state Kubespray's run would leave: its pools' modes and natOutgoing, its backend, its Felix default flags. */
export function stateAfterInventory(live: Live, desired: Desired): ClusterState {
  const pools = live.pools.map((p) => {
    const want = desired.pools.find((d) => managedPool(live, d) === p);
    return want
      ? { ...p, ipipMode: want.ipipMode, vxlanMode: want.vxlanMode, natOutgoing: want.natOutgoing }
      : p;
  });
  const v4 = desired.pools.find((d) => d.ipVersion === 4);
  const felixDefault = v4
    ? { ...live.felixDefault, ipipEnabled: isOn(v4.ipipMode), vxlanEnabled: isOn(v4.vxlanMode) }
    : live.felixDefault;
  return { ...liveState(live), pools, felixDefault, backend: desired.backend };
}

export function liveState(live: Live): ClusterState {
  return {
    calicoVersion: live.calicoVersion,
    pools: live.pools,
    felixDefault: live.felixDefault,
    felixNodes: live.felixNodes,
    nodeEnv: live.nodeEnv,
    backend: liveBackend(live),
  };
}

/** The inventory variable that decides each requirement after Kubespray's run (it writes Felix's flags from the modes). */
const TARGET_VARIABLE: Record<string, string> = {
  "backend.ipipWithoutBird": kubesprayVariable("network_backend"),
  "felix.ipipEnabled": kubesprayVariable("ipip_mode"),
  "felix.vxlanEnabled": kubesprayVariable("vxlan_mode"),
};

function problemFinding(p: Problem, when: "live" | "target", variable: string): Finding {
  const prefix = when === "live" ? "Now: " : "After Kubespray applies the inventory: ";
  const remedy =
    p.id === "backend.ipipWithoutBird"
      ? `Keep calico_network_backend: bird while any pool uses IPIP, or migrate those pools to VXLAN with ${MIGRATE} first.`
      : p.kind === "leftover"
        ? `Remove the leftover setting: calicoctl.sh patch ${p.object.replace("/", " ").toLowerCase()} -p '{"spec":{"${p.field.replace("spec.", "")}":null}}' (on Calico >= 3.23 an unset flag follows the pools).`
        : `Make Felix's setting follow the pools (remove the explicit false or the FELIX_* env override), or run ${MIGRATE}.`;
  return finding(
    `${when}.${p.id}`,
    p.object,
    p.field,
    when === "live" ? p.value : null,
    when === "target" ? p.value : null,
    variable,
    p.kind === "outage" ? "blocking" : "warning",
    prefix + p.detail + ".",
    remedy,
  );
}

/** Every finding, inventory errors first, then pools, backend, and the route requirements. */
export function compare(desired: Desired, live: Live): Finding[] {
  const out = inventoryFindings(desired);
  if (!live.calicoInstalled) return out;
  for (const want of desired.pools) out.push(...poolFindings(live, want, desired));
  out.push(...backendFindings(live, desired));
  const liveProblems = routeProblems(liveState(live));
  const seen = new Set(liveProblems.map((p) => `${p.id} ${p.object}`));
  for (const p of liveProblems) out.push(problemFinding(p, "live", ""));
  for (const p of routeProblems(stateAfterInventory(live, desired))) {
    if (p.kind !== "outage" || seen.has(`${p.id} ${p.object}`)) continue;
    out.push(problemFinding(p, "target", TARGET_VARIABLE[p.id] ?? ""));
  }
  return out;
}
