// What a cluster state needs for every pool's traffic to have a route (reference/calico.md,
// "Routing ownership" and FelixConfiguration): IPIP pools and unencapsulated pools need BIRD (routing.ts);
// an IPIP pool needs Felix's IPIP on; an IPv4 VXLAN pool needs Felix's VXLAN on. An encapsulation Felix runs
// with no pool using it is a leftover.

import type { Encapsulation, FelixInputs } from "../shared/felix.js";
import { effectiveFlag, FELIX_FLAG, nodeOverrides, poolsUsing } from "../shared/felix.js";
import { poolsStrandedBy } from "../shared/routing.js";
import { workloadPools } from "../shared/tunnel-pool.js";

export interface ClusterState extends FelixInputs {
  /** calico_backend as calico-node pods start with it (null: unset, which means bird). */
  backend: string | null;
}

export interface Problem {
  /** outage: some pool's traffic has no route; leftover: harmless for routes, wrong for MTU and logs. */
  kind: "outage" | "leftover";
  id: string;
  object: string;
  field: string;
  value: unknown;
  pools: string[];
  detail: string;
}

function felixProblems(state: ClusterState, encap: Encapsulation): Problem[] {
  // Pods' pools need the encapsulation; a Tunnel-only pool (tunnel-pool.ts) only keeps VTEPs and needs nothing,
  // but counts as a user: its VTEPs are the reason VXLAN may stay on.
  const users = poolsUsing(workloadPools(state.pools), encap);
  const anyUser = poolsUsing(state.pools, encap).length > 0;
  const { field } = FELIX_FLAG[encap];
  const label = encap === "ipip" ? "IPIP" : "VXLAN";
  const problems: Problem[] = [];
  const scopes: (string | undefined)[] = [undefined, ...nodeOverrides(state, encap)];
  for (const node of scopes) {
    const flag = effectiveFlag(state, encap, node);
    const object =
      node === undefined ? "FelixConfiguration/default" : `FelixConfiguration/node.${node}`;
    const where = node === undefined ? "every node" : `node ${node}`;
    if (users.length > 0 && !flag.enabled) {
      problems.push({
        kind: "outage",
        id: `felix.${field}`,
        object,
        field: `spec.${field}`,
        value: false,
        pools: users,
        detail: `Felix's ${label} is off on ${where} (${flag.source}) while pool(s) ${users.join(", ")} use ${label}: those nodes program no ${encap === "ipip" ? "tunl0" : "vxlan.calico"} and their pods lose cross-node traffic`,
      });
    } else if (!anyUser && flag.enabled) {
      problems.push({
        kind: "leftover",
        id: `felix.${field}`,
        object,
        field: `spec.${field}`,
        value: true,
        pools: [],
        detail:
          encap === "vxlan"
            ? `Felix's VXLAN is on on ${where} (${flag.source}) but no IPv4 pool uses VXLAN: Felix keeps looking for vxlan.calico ("Failed to get link attributes") and MTU detection counts a VXLAN overhead`
            : `Felix's IPIP is on on ${where} (${flag.source}) but no pool uses IPIP: tunl0 keeps its address and MTU detection counts an IPIP overhead`,
      });
    }
  }
  return problems;
}

/** Every requirement the state breaks: outages first, then leftovers. */
export function routeProblems(state: ClusterState): Problem[] {
  const problems: Problem[] = [];
  const stranded = poolsStrandedBy(state.backend, state.pools);
  if (stranded.length > 0) {
    problems.push({
      kind: "outage",
      id: "backend.needsBird",
      object: "ConfigMap kube-system/calico-config",
      field: "data.calico_backend",
      value: state.backend,
      pools: stranded,
      detail: `backend ${String(state.backend)} runs no BIRD, but pool(s) ${stranded.join(", ")} use IPIP or no encapsulation, whose routes BIRD distributes: cross-node traffic of their pods has no route`,
    });
  }
  problems.push(...felixProblems(state, "ipip"), ...felixProblems(state, "vxlan"));
  return problems.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === "outage" ? -1 : 1));
}
