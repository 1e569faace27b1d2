// What the kubeconfig's identity must be allowed before calico_encap_migrate writes anything, and the question put
// to the API server (`kubectl auth can-i`, a SelfSubjectAccessReview that every authenticated user may create): a
// run whose role lacks one of them refuses before its first write, naming it, instead of stopping half-way.

import type { Write } from "../calico/plan/plan.js";
import { LEASE_NAME, LEASE_NAMESPACE } from "./lease.js";
import type { BatchCommand, CommandResult, Permission } from "./runner.js";
import type { WriteContext } from "./write.js";
import { commandsFor } from "./write.js";

/**
 * The Lease's: created by its name in the body (which RBAC cannot restrict by name), then read, renewed and
 * released (src/cluster/lock.ts).
 */
export const LEASE_PERMISSIONS: readonly Permission[] = [
  { verb: "create", resource: "leases.coordination.k8s.io", namespace: LEASE_NAMESPACE },
  ...["get", "patch", "update"].map((verb) => ({
    verb,
    resource: "leases.coordination.k8s.io",
    name: LEASE_NAME,
    namespace: LEASE_NAMESPACE,
  })),
];

/** stop_before: pool_switch's read of the IPAM block affinities (observe-migration.ts readBlockAffinities). */
export const BLOCK_AFFINITIES_READ: Permission = {
  verb: "list",
  resource: "blockaffinities.crd.projectcalico.org",
};

/** "patch felixconfigurations.crd.projectcalico.org/default in kube-system". */
export function describePermission(p: Permission): string {
  return `${p.verb} ${p.resource}${p.name ? `/${p.name}` : ""}${p.namespace ? ` in ${p.namespace}` : ""}`;
}

/**
 * Every permission the plan's writes need through kubectl (a rollback writes the same objects back), the Lease's, and
 * the reads given beyond the polls' (stop_before's), each once, in the order first needed.
 */
export function permissionsFor(
  writes: readonly Write[],
  c: WriteContext,
  reads: readonly Permission[] = [],
): Permission[] {
  const all = [
    ...LEASE_PERMISSIONS,
    ...reads,
    ...writes.flatMap((w) => commandsFor(w, c).flatMap((cmd) => (cmd.needs ? [cmd.needs] : []))),
  ];
  const seen = new Set<string>();
  return all.filter((p) => {
    const key = describePermission(p);
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

/** `kubectl auth can-i` for one permission. */
export function canICommand(
  kubectl: readonly string[],
  p: Permission,
  timeoutSeconds: number,
): BatchCommand {
  return {
    argv: [
      ...kubectl,
      ...(p.namespace ? ["--namespace", p.namespace] : []),
      "auth",
      "can-i",
      p.verb,
      p.name ? `${p.resource}/${p.name}` : p.resource,
    ],
    timeoutSeconds,
  };
}

/**
 * The answers: the permissions the API server denied ("no"), and those it could not be asked about (anything but
 * "yes" or "no": an old kubectl, an error), with what kubectl said.
 */
export function deniedPermissions(
  asked: readonly Permission[],
  answers: readonly CommandResult[],
): { denied: Permission[]; unknown: string[] } {
  const denied: Permission[] = [];
  const unknown: string[] = [];
  asked.forEach((p, i) => {
    const r = answers[i];
    const said = r?.stdout.trim() ?? "";
    if (said === "yes" && r?.rc === 0) return;
    if (said === "no" || said.startsWith("no ")) denied.push(p);
    else
      unknown.push(
        `${describePermission(p)}: ${(r?.stderr.trim() || said || `exit ${r?.rc ?? "?"}`).slice(0, 200)}`,
      );
  });
  return { denied, unknown };
}
