// The preflight's findings on Kubespray's pools: the live pool it manages for each desired pool, and each field
// that differs (modes, cidr, blockSize, natOutgoing), with why and the remedy. Pure.

import { cidrsOverlap, sameCidr } from "../shared/cidr.js";
import { finding, MIGRATE } from "./findings.js";
import { kubesprayVariable, POOL_OPTIONS } from "../shared/kubespray.js";
import type { Desired, DesiredPool, Finding, Live, Pool } from "../shared/model.js";
import { runningBackend } from "../shared/routing.js";
import { IMMUTABLE_POOL_FIELDS } from "../shared/rules.js";
import { IN_PLACE_WINDOW, workloadPools } from "../shared/tunnel-pool.js";

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

function encapsulationWhy(live: Live, desired: Desired): string {
  return (
    `Kubespray would patch the pool in place and roll calico-node with backend ${desired.backend} in the same run, ` +
    `so cross-node pod traffic drops until every node has its new tunnel address and routes ` +
    `(Kubespray issue #8691; the live backend is ${runningBackend(live)}).`
  );
}

export function migrateRemedy(variable: string, liveValue: unknown): string {
  return (
    `To keep today's behaviour, set ${variable}: ${String(liveValue)}. ` +
    `To change it, run ${MIGRATE} first (it moves pools, Felix and the backend one step at a time, waiting for every node after each; ${IN_PLACE_WINDOW}), then set the inventory to match.`
  );
}

export function poolFindings(live: Live, want: DesiredPool, desired: Desired): Finding[] {
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
