// The preflight comparison: the inventory (after Kubespray's defaults) against the live cluster.
// Pure: Live and Desired in, findings out.

import type { ClusterState, Problem } from "./consistency.js";
import { routeProblems } from "./consistency.js";
import { ENCAPSULATIONS, FELIX_FLAG } from "../shared/felix.js";
import { CONFIGMAP, finding, MIGRATE } from "./findings.js";
import { managedPool, migrateRemedy, poolFindings } from "./pool-findings.js";
import {
  clusterRoutesFindings,
  datastoreFindings,
  familyFindings,
  felixFindings,
  rolloutFindings,
} from "./deployment-findings.js";
import { kubesprayVariable, POOL_OPTIONS } from "../shared/kubespray.js";
import type { Desired, Finding, Live } from "../shared/model.js";
import { isOn } from "../shared/model.js";
import { configuredBackend, needsBgp, poolsStrandedBy, runningBackend } from "../shared/routing.js";
import { backendRunsBgp, poolModeViolations } from "../shared/rules.js";

function inventoryFindings(desired: Desired): Finding[] {
  const out: Finding[] = [];
  for (const pool of desired.pools) {
    const opts = POOL_OPTIONS[pool.ipVersion];
    for (const violation of poolModeViolations(pool)) {
      const ipv6Ipip = pool.ipVersion === 6 && isOn(pool.ipipMode);
      out.push(
        finding({
          id: ipv6Ipip ? "inventory.ipipOnIpv6" : "inventory.bothEncapsulations",
          object: `IPPool/${pool.name}`,
          field: ipv6Ipip ? "spec.ipipMode" : "spec.ipipMode, spec.vxlanMode",
          live: null,
          inventory: ipv6Ipip
            ? pool.ipipMode
            : { ipipMode: pool.ipipMode, vxlanMode: pool.vxlanMode },
          variable: ipv6Ipip
            ? kubesprayVariable(opts.ipipMode)
            : `${kubesprayVariable(opts.ipipMode)}, ${kubesprayVariable(opts.vxlanMode)}`,
          severity: "blocking",
          why: `Calico rejects this pool: "${violation}".`,
          remedy: ipv6Ipip
            ? `Set ${kubesprayVariable(opts.ipipMode)}: Never (IPv6 pools can use VXLAN).`
            : `Set one of ${kubesprayVariable(opts.ipipMode)} and ${kubesprayVariable(opts.vxlanMode)} to Never.`,
        }),
      );
    }
    if (needsBgp(pool) && !backendRunsBgp(desired.backend)) {
      out.push(
        finding({
          id: "inventory.needsBird",
          object: CONFIGMAP,
          field: "data.calico_backend",
          live: null,
          inventory: desired.backend,
          variable: kubesprayVariable("network_backend"),
          severity: "blocking",
          why: `Pool ${pool.name} (ipipMode ${pool.ipipMode}, vxlanMode ${pool.vxlanMode}) needs BIRD to distribute its routes (IPIP and unencapsulated pools do), and backend ${desired.backend} runs no BIRD.`,
          remedy: `Set calico_network_backend: bird, or use VXLAN (${kubesprayVariable(opts.ipipMode)}: Never, ${kubesprayVariable(opts.vxlanMode)}: Always).`,
        }),
      );
    }
  }
  return out;
}

function backendFindings(live: Live, desired: Desired): Finding[] {
  const have = configuredBackend(live);
  if (have === null) {
    return [
      finding({
        id: "backend.unknown",
        object: CONFIGMAP,
        field: "data.calico_backend",
        live: null,
        inventory: desired.backend,
        variable: kubesprayVariable("network_backend"),
        severity: "warning",
        why: "The ConfigMap or its calico_backend key is missing, so calico-node starts with its built-in default (bird).",
        remedy: `Check the calico-node DaemonSet; to keep BGP, set ${kubesprayVariable("network_backend")}: bird.`,
      }),
    ];
  }
  if (have === desired.backend) return [];
  const stranded = backendRunsBgp(have) ? poolsStrandedBy(desired.backend, live.pools) : [];
  const why =
    stranded.length > 0
      ? `calico-node would restart without BIRD while pool(s) ${stranded.join(", ")} route with BGP (IPIP or no encapsulation): nothing programs their routes any more (BIRD's last routes stay in the kernel until a node loses them, at a restart or a new block), and cross-node pod traffic stops (the 2022 upgrade break, Kubespray issue #8691).`
      : `calico-node reads the backend only when a pod starts, so Kubespray's change rolls calico-node on every node with ${desired.backend === "bird" ? "BIRD starting" : "BIRD stopping"}; routes change while pools keep their encapsulation.`;
  return [
    finding({
      id: "backend",
      object: CONFIGMAP,
      field: "data.calico_backend",
      live: have,
      inventory: desired.backend,
      variable: kubesprayVariable("network_backend"),
      severity: "blocking",
      why,
      remedy: migrateRemedy(kubesprayVariable("network_backend"), have),
    }),
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
  const felixDefault = { ...live.felixDefault, ...desired.felix };
  return { ...liveState(live), pools, felixDefault, backend: desired.backend };
}

export function liveState(live: Live): ClusterState {
  return {
    calicoVersion: live.calicoVersion,
    pools: live.pools,
    felixDefault: live.felixDefault,
    felixNodes: live.felixNodes,
    nodeEnv: live.nodeEnv,
    backend: runningBackend(live),
  };
}

/** The inventory variable that decides each requirement after Kubespray's run (it writes Felix's flags from the modes). */
const TARGET_VARIABLE: Record<string, string> = {
  "backend.needsBird": kubesprayVariable("network_backend"),
  ...Object.fromEntries(
    ENCAPSULATIONS.map((e) => [
      `felix.${FELIX_FLAG[e].field}`,
      kubesprayVariable(FELIX_FLAG[e].option),
    ]),
  ),
};

function problemFinding(
  p: Problem,
  when: "live" | "target",
  variable: string,
  desired: Desired,
): Finding {
  const prefix = when === "live" ? "Now: " : "After Kubespray applies the inventory: ";
  const flag = ENCAPSULATIONS.map((e) => FELIX_FLAG[e]).find((f) => `spec.${f.field}` === p.field);
  const kubesprayWrites =
    p.kind === "leftover" && p.object === "FelixConfiguration/default" && flag
      ? desired.felix[flag.field]
      : undefined;
  const remedy =
    p.id === "backend.needsBird"
      ? `Keep calico_network_backend: bird while any pool uses IPIP or no encapsulation, or migrate those pools to VXLAN with ${MIGRATE} first.`
      : kubesprayWrites === false && flag
        ? `Kubespray's next run writes ${flag.field}: false (${kubesprayVariable(flag.option)} is Never), which ends it and restarts Felix on every node at once; to choose when, write it before the upgrade: calicoctl.sh patch felixconfiguration default -p '{"spec":{"${flag.field}":false}}'.`
        : p.kind === "leftover"
          ? `Remove the leftover setting: calicoctl.sh patch ${p.object.replace("/", " ").toLowerCase()} -p '{"spec":{"${p.field.replace("spec.", "")}":null}}' (on Calico >= 3.23 an unset flag follows the pools).`
          : `Make Felix's setting follow the pools (remove the explicit false or the FELIX_* env override), or run ${MIGRATE}.`;
  return finding({
    id: `${when}.${p.id}`,
    object: p.object,
    field: p.field,
    live: when === "live" ? p.value : null,
    inventory: when === "target" ? p.value : null,
    variable,
    severity: p.kind === "outage" ? "blocking" : "warning",
    why: prefix + p.detail + ".",
    remedy,
  });
}

/** calico_datastore against the datastore calico-config and the calico-node template use. */
export function compare(desired: Desired, live: Live): Finding[] {
  const out = inventoryFindings(desired);
  out.push(...datastoreFindings(live, desired));
  if (!live.calicoInstalled) return out;
  out.push(...familyFindings(live, desired));
  for (const want of desired.pools) out.push(...poolFindings(live, want, desired));
  out.push(...backendFindings(live, desired));
  out.push(...rolloutFindings(live));
  const liveProblems = routeProblems(liveState(live));
  const seen = new Set(liveProblems.map((p) => `${p.id} ${p.object}`));
  for (const p of liveProblems) out.push(problemFinding(p, "live", "", desired));
  for (const p of routeProblems(stateAfterInventory(live, desired))) {
    if (p.kind !== "outage" || seen.has(`${p.id} ${p.object}`)) continue;
    seen.add(`${p.id} ${p.object}`);
    out.push(problemFinding(p, "target", TARGET_VARIABLE[p.id] ?? "", desired));
  }
  // A flag a route finding already names on FelixConfiguration default is said there once.
  out.push(
    ...felixFindings(live, desired).filter((f) => !seen.has(`${f.id} FelixConfiguration/default`)),
  );
  out.push(...clusterRoutesFindings(live));
  return out;
}
