// The preflight comparison: the inventory (after Kubespray's defaults) against the live cluster.
// Pure: Live and Desired in, findings out.

import type { ClusterState, Problem } from "./consistency.js";
import { routeProblems } from "./consistency.js";
import { cidrsOverlap, sameCidr } from "../shared/cidr.js";
import { liveDatastore, liveFamily } from "../shared/deployment.js";
import { ENCAPSULATIONS, envFlag, FELIX_FLAG, poolsUsing } from "../shared/felix.js";
import { clusterRoutesLeftOn } from "../shared/cluster-routes.js";
import { finding } from "./findings.js";
import { kubesprayVariable, POOL_OPTIONS } from "../shared/kubespray.js";
import type { Desired, DesiredPool, Finding, IpVersion, Live, Pool } from "../shared/model.js";
import { isOn } from "../shared/model.js";
import { configuredBackend, needsBgp, poolsStrandedBy, runningBackend } from "../shared/routing.js";
import { backendRunsBgp, IMMUTABLE_POOL_FIELDS, poolModeViolations } from "../shared/rules.js";
import { IN_PLACE_WINDOW, workloadPools } from "../shared/tunnel-pool.js";
import {
  CALICO_NODE_DAEMONSET as DAEMONSET,
  HELD_MAX_UNAVAILABLE,
  showMaxUnavailable,
} from "../shared/rollout.js";

const CONFIGMAP = "ConfigMap kube-system/calico-config";
const MIGRATE = "calico_encap_migrate";

/**
 * The live pool Kubespray manages for a desired pool: same name, else the only pods' pool of that IP version (a
 * Tunnel-only pool calico_encap_migrate created, tunnel-pool.ts, is never Kubespray's).
 */
export function managedPool(
  live: Live,
  want: { name: string; ipVersion: 4 | 6 },
): Pool | undefined {
  const byName = live.pools.find((p) => p.name === want.name);
  if (byName) return byName;
  const sameVersion = workloadPools(live.pools).filter((p) => p.ipVersion === want.ipVersion);
  return sameVersion.length === 1 ? sameVersion[0] : undefined;
}

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

function encapsulationWhy(live: Live, desired: Desired): string {
  return (
    `Kubespray would patch the pool in place and roll calico-node with backend ${desired.backend} in the same run, ` +
    `so cross-node pod traffic drops until every node has its new tunnel address and routes ` +
    `(Kubespray issue #8691; the live backend is ${runningBackend(live)}).`
  );
}

function migrateRemedy(variable: string, liveValue: unknown): string {
  return (
    `To keep today's behaviour, set ${variable}: ${String(liveValue)}. ` +
    `To change it, run ${MIGRATE} first (it moves pools, Felix and the backend one step at a time, waiting for every node after each; ${IN_PLACE_WINDOW}), then set the inventory to match.`
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
      finding({
        id: "pool.missing",
        object: `IPPool/${want.name}`,
        field: "metadata.name",
        live: null,
        inventory: want.name,
        variable: kubesprayVariable("pool_name"),
        severity: overlapping.length > 0 ? "blocking" : "warning",
        why:
          overlapping.length > 0
            ? `Kubespray would create pool ${want.name} with cidr ${want.cidr}, which overlaps live pool(s) ${overlapping.join(", ")}: Calico refuses the create and the play fails half-way.`
            : `Kubespray will create a new pool ${want.name} (${want.cidr}) beside the live pools (${live.pools.map((p) => p.name).join(", ") || "none"}).`,
        remedy:
          overlapping.length > 0
            ? `Set ${kubesprayVariable("pool_name")} and ${kubesprayVariable(opts.cidr)} to the live pool's values (${overlapping.join(", ")}).`
            : `Nothing, if a new pool is intended; otherwise set ${kubesprayVariable("pool_name")} to the live pool's name.`,
      }),
    ];
  }
  const object = `IPPool/${have.name}`;
  const out: Finding[] = [];
  if (have.name !== want.name)
    out.push(
      finding({
        id: "pool.name",
        object,
        field: "metadata.name",
        live: have.name,
        inventory: want.name,
        variable: kubesprayVariable("pool_name"),
        severity: "blocking",
        why: `The cluster's only IPv${want.ipVersion} pool is ${have.name}; Kubespray would create a second pool ${want.name} instead of managing it.`,
        remedy: `Set ${kubesprayVariable("pool_name")}: ${have.name}.`,
      }),
    );
  if (!sameCidr(have.cidr, want.cidr))
    out.push(
      finding({
        id: "pool.cidr",
        object,
        field: "spec.cidr",
        live: have.cidr,
        inventory: want.cidr,
        variable: kubesprayVariable(opts.cidr),
        severity: "blocking",
        why: `Calico refuses to change it ("${IMMUTABLE_POOL_FIELDS.cidr}"), so Kubespray's pool update fails half-way through the play.`,
        remedy: `Set ${kubesprayVariable(opts.cidr)}: ${have.cidr}. Changing a pool's CIDR takes a new pool and draining the old one, not an inventory change.`,
      }),
    );
  if (have.blockSize !== want.blockSize)
    out.push(
      finding({
        id: "pool.blockSize",
        object,
        field: "spec.blockSize",
        live: have.blockSize,
        inventory: want.blockSize,
        variable: kubesprayVariable(opts.blockSize),
        ...(want.blockSizeKept
          ? {
              severity: "warning" as const,
              why: `The fork's Calico role keeps the live pool's blockSize (its install.yml merges it over the inventory's), so nothing changes; Calico would refuse to ("${IMMUTABLE_POOL_FIELDS.blockSize}"). Kubespray's own check (cluster.yml's preinstall, not run under --tags=network) still refuses the difference.`,
              remedy: `Set ${kubesprayVariable(opts.blockSize)}: ${have.blockSize} so that the inventory says what the cluster has, as Kubespray's own check requires.`,
            }
          : {
              severity: "blocking" as const,
              why: `Calico refuses to change it ("${IMMUTABLE_POOL_FIELDS.blockSize}"), so Kubespray's pool update fails half-way through the play.`,
              remedy: `Set ${kubesprayVariable(opts.blockSize)}: ${have.blockSize}. Changing it takes a new pool and draining the old one.`,
            }),
      }),
    );
  for (const field of ["ipipMode", "vxlanMode"] as const) {
    if (have[field] !== want[field])
      out.push(
        finding({
          id: `pool.${field}`,
          object,
          field: `spec.${field}`,
          live: have[field],
          inventory: want[field],
          variable: kubesprayVariable(opts[field]),
          severity: "blocking",
          why: encapsulationWhy(live, desired),
          remedy: migrateRemedy(kubesprayVariable(opts[field]), have[field]),
        }),
      );
  }
  if (have.natOutgoing !== want.natOutgoing)
    out.push(
      finding({
        id: "pool.natOutgoing",
        object,
        field: "spec.natOutgoing",
        live: have.natOutgoing,
        inventory: want.natOutgoing,
        variable: kubesprayVariable(opts.natOutgoing),
        severity: "warning",
        why: want.natOutgoing
          ? `Kubespray will turn natOutgoing on: pods' traffic leaving the pool will be SNATed to the node's address.`
          : `Kubespray will turn natOutgoing off: pods' traffic to addresses outside the cluster is no longer SNATed and may find no way back.`,
        remedy: `If unintended, set ${kubesprayVariable(opts.natOutgoing)}: ${String(have.natOutgoing)}.`,
      }),
    );
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
function datastoreFindings(live: Live, desired: Desired): Finding[] {
  const have = liveDatastore(live);
  const variable = kubesprayVariable("datastore");
  if (have !== null && have.value !== desired.datastore)
    return [
      finding({
        id: "datastore",
        object: DAEMONSET,
        field: "spec.template env DATASTORE_TYPE, ETCD_ENDPOINTS",
        live: have.value,
        inventory: desired.datastore,
        variable,
        severity: "blocking",
        why:
          `The cluster's Calico uses the ${have.value === "etcd" ? "etcd" : "Kubernetes (kdd)"} datastore (${have.seen.join("; ")}). ` +
          `Kubespray would render calico-node, calicoctl.sh and the CNI configuration for ${desired.datastore}, a datastore that holds none of this cluster's pools, IPAM blocks or node data: ` +
          `calico-node would restart against it and pod networking breaks.`,
        remedy: `Set ${variable}: ${have.value}. Moving Calico to another datastore is a migration of its own (Calico's calicoctl datastore migrate), not an inventory change.`,
      }),
    ];
  if (!live.calicoInstalled && live.nodeEnv !== null)
    return [
      finding({
        id: "datastore.unread",
        object: DAEMONSET,
        field: "metadata.name",
        live: have?.value ?? null,
        inventory: desired.datastore,
        variable,
        severity: "blocking",
        why: `calico-node is deployed, but ${live.client} found no Calico objects (${live.reason}): the datastore it read is not the one calico-node uses${have ? ` (${have.seen.join("; ")})` : ""}, so nothing could be compared.`,
        remedy: `Point calicoctl_path at Kubespray's calicoctl.sh for this cluster's datastore (or set datastore_client: kubectl on kdd), and check ${variable}.`,
      }),
    ];
  return [];
}

const STACK: Record<IpVersion, "ipv4_stack" | "ipv6_stack"> = { 4: "ipv4_stack", 6: "ipv6_stack" };

/** ipv4_stack / ipv6_stack off while the cluster carries that family's pod traffic. */
function familyFindings(live: Live, desired: Desired): Finding[] {
  const out: Finding[] = [];
  for (const version of [4, 6] as const) {
    if (desired.pools.some((p) => p.ipVersion === version)) continue;
    const { pools, template } = liveFamily(live, version);
    if (pools.length === 0 && template.length === 0) continue;
    const variable = kubesprayVariable(STACK[version]);
    const without =
      version === 6
        ? "calico-node and the CNI configuration without IPv6 (FELIX_IPV6SUPPORT false, no IP6 autodetection)"
        : "calico-node and the CNI configuration without IPv4";
    out.push(
      finding({
        id: `stack.ipv${version}`,
        object: "Pod network",
        field: `IPv${version}`,
        live: true,
        inventory: false,
        variable,
        severity: pools.length > 0 ? "blocking" : "warning",
        why:
          `The cluster carries IPv${version} pod traffic (${[...pools, ...template].join("; ")}). ` +
          (pools.length > 0
            ? `Kubespray would render ${without}: pods would lose their IPv${version} traffic.`
            : `No IPv${version} pool is enabled, so no pod traffic depends on it; Kubespray would render ${without} and roll calico-node.`),
        remedy: `Set ${variable}: true${version === 6 ? " and the IPv6 pool's variables pin_vars lists" : ""}.`,
      }),
    );
  }
  return out;
}

/** A calico-node DaemonSet an interrupted calico_encap_migrate left rolling on every node at once (rollout.ts). */
function rolloutFindings(live: Live): Finding[] {
  if (live.heldMaxUnavailable === undefined) return [];
  const was = showMaxUnavailable(live.heldMaxUnavailable);
  return [
    finding({
      id: "daemonset.maxUnavailable",
      object: DAEMONSET,
      field: `metadata.annotations.${HELD_MAX_UNAVAILABLE}`,
      live: live.heldMaxUnavailable,
      inventory: null,
      variable: "",
      severity: "warning",
      why: `A calico_encap_migrate run that did not finish changed spec.updateStrategy.rollingUpdate.maxUnavailable (it keeps the value it found, ${was}, in this annotation): until it is put back, any change to the pod template restarts calico-node on every node at once. Kubespray's next run writes its template's maxUnavailable back but leaves this annotation.`,
      remedy: `Run ${MIGRATE} again with the same target: it puts maxUnavailable back to ${was} and removes the annotation as its last step.`,
    }),
  ];
}

/**
 * What Kubespray's next run would change in FelixConfiguration default: it writes ipipEnabled and vxlanEnabled
 * explicitly on every run (kubespray.ts), and a changed flag restarts Felix on every node at once (felix-restart.ts:
 * Felix compares its resolved config, so a flag calico-node's env overrides changes nothing and is left out).
 */
function felixFindings(live: Live, desired: Desired): Finding[] {
  const out: Finding[] = [];
  for (const encap of ENCAPSULATIONS) {
    const { field, option } = FELIX_FLAG[encap];
    const has = live.felixDefault?.[field];
    const writes = desired.felix[field];
    if (has === writes || envFlag(live.nodeEnv, encap) !== undefined) continue;
    const variable = kubesprayVariable(option);
    out.push(
      finding({
        id: `felix.${field}`,
        object: "FelixConfiguration/default",
        field: `spec.${field}`,
        live: has ?? null,
        inventory: writes,
        variable,
        severity: "warning",
        why: `Kubespray's Calico role writes ${field}: ${writes} on every run (${variable} ${writes ? "is not" : "is"} Never). Felix restarts on every node at once when it changes (the pools stay as they are; at such a restart the lab lost a few IPv6 probes and no IPv4).`,
        remedy: `This alone does not block the upgrade. To choose when Felix restarts, write it before the upgrade: calicoctl.sh patch felixconfiguration default -p '{"spec":{"${field}":${writes}}}'.`,
      }),
    );
  }
  return out;
}

/**
 * programClusterRoutes (cluster-routes.ts): no finding while an IPIP pool needs it (calico_encap_migrate leaves it
 * Enabled after a switch into IPIP, and Kubespray's FelixConfiguration merge keeps a field it does not render); a
 * warning when it is left on with none.
 */
function clusterRoutesFindings(live: Live): Finding[] {
  const left = clusterRoutesLeftOn(live, poolsUsing(workloadPools(live.pools), "ipip"));
  if (!left) return [];
  return [
    finding({
      id: "felix.programClusterRoutes",
      object: "FelixConfiguration/default",
      field: "spec.programClusterRoutes",
      live: "Enabled",
      inventory: null,
      variable: "",
      severity: "warning",
      why: left,
      remedy:
        "This alone does not block the upgrade: Kubespray's next run keeps the field (it merges only the fields it renders).",
    }),
  ];
}

/** Every finding, inventory errors first, then the datastore, the IP families, pools, backend, and the route requirements. */
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
