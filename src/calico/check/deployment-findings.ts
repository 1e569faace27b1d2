// The preflight's findings on how calico-node is deployed: the datastore, the IP families, an interrupted roll,
// Felix's encapsulation flags and the cluster routes a migration left on. Pure.

import { liveDatastore, liveFamily } from "../shared/deployment.js";
import { ENCAPSULATIONS, envFlag, FELIX_FLAG, poolsUsing } from "../shared/felix.js";
import { clusterRoutesLeftOn } from "../shared/cluster-routes.js";
import { finding, MIGRATE } from "./findings.js";
import { kubesprayVariable } from "../shared/kubespray.js";
import type { Desired, Finding, IpVersion, Live } from "../shared/model.js";
import { workloadPools } from "../shared/tunnel-pool.js";
import {
  CALICO_NODE_DAEMONSET as DAEMONSET,
  HELD_MAX_UNAVAILABLE,
  showMaxUnavailable,
} from "../shared/rollout.js";

export function datastoreFindings(live: Live, desired: Desired): Finding[] {
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
export function familyFindings(live: Live, desired: Desired): Finding[] {
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
export function rolloutFindings(live: Live): Finding[] {
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
export function felixFindings(live: Live, desired: Desired): Finding[] {
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
export function clusterRoutesFindings(live: Live): Finding[] {
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
