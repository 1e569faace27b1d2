// The lab's kube-apiserver audit log (LAB_AUDIT=1: every request at Metadata level, JSON lines in
// <state>/log/audit.log), and RBAC rules held against it: which requests a user made, whether a role allows each,
// and which of the role's grants no request used. The record is the API server's own, independent of what the tool
// says it did.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";

/** One request the API server received, as its audit log names it. */
export interface AuditRequest {
  user: string;
  verb: string;
  /** "" for the core group. */
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  code: number;
  at: string;
}

interface AuditEvent {
  stage?: string;
  verb?: string;
  user?: { username?: string };
  objectRef?: {
    resource?: string;
    subresource?: string;
    namespace?: string;
    name?: string;
    apiGroup?: string;
  };
  responseStatus?: { code?: number };
  requestReceivedTimestamp?: string;
}

/** The resource requests of an audit log (non-resource URLs such as /readyz left out), at ResponseComplete. */
export function auditRequests(log: string): AuditRequest[] {
  const out: AuditRequest[] = [];
  for (const line of log.split("\n")) {
    if (!line.trim()) continue;
    const e = JSON.parse(line) as AuditEvent;
    if (e.stage !== "ResponseComplete" || !e.objectRef?.resource) continue;
    out.push({
      user: e.user?.username ?? "",
      verb: e.verb ?? "",
      group: e.objectRef.apiGroup ?? "",
      resource: e.objectRef.resource,
      subresource: e.objectRef.subresource ?? "",
      namespace: e.objectRef.namespace ?? "",
      name: e.objectRef.name ?? "",
      code: e.responseStatus?.code ?? 0,
      at: e.requestReceivedTimestamp ?? "",
    });
  }
  return out;
}

/** The requests of the lab's audit log made by `user`. */
export function labAuditRequests(state: string, user: string): AuditRequest[] {
  return auditRequests(readFileSync(join(state, "log", "audit.log"), "utf8")).filter(
    (r) => r.user === user,
  );
}

/** One RBAC rule, and where it applies: cluster-wide (a ClusterRole) or in one namespace (a Role). */
export interface Grant {
  namespace: string | null;
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

interface RoleDoc {
  kind?: string;
  metadata?: { namespace?: string };
  rules?: Omit<Grant, "namespace">[];
  /** A v1 List's objects. */
  items?: RoleDoc[];
}

function grantsOfDoc(doc: RoleDoc | null): Grant[] {
  if (!doc) return [];
  if (doc.kind === "List") return (doc.items ?? []).flatMap(grantsOfDoc);
  if (doc.kind !== "ClusterRole" && doc.kind !== "Role") return [];
  const namespace = doc.kind === "Role" ? (doc.metadata?.namespace ?? "default") : null;
  return (doc.rules ?? []).map((r) => ({ ...r, namespace }));
}

/** The rules of the ClusterRoles and Roles in a YAML file, also inside a v1 List (bindings and other kinds left out). */
export function grantsOf(yamlText: string): Grant[] {
  return parseAllDocuments(yamlText).flatMap((d) => grantsOfDoc(d.toJS() as RoleDoc | null));
}

const resourceOf = (r: AuditRequest): string =>
  r.subresource ? `${r.resource}/${r.subresource}` : r.resource;

/** Whether one grant allows a request, as RBAC decides it (no aggregation; "*" for any group, resource, verb). */
export function grantAllows(g: Grant, r: AuditRequest): boolean {
  if (g.namespace !== null && g.namespace !== r.namespace) return false;
  if (!g.apiGroups.some((x) => x === "*" || x === r.group)) return false;
  if (!g.resources.some((x) => x === "*" || x === resourceOf(r))) return false;
  if (!g.verbs.some((x) => x === "*" || x === r.verb)) return false;
  // resourceNames cannot restrict a list, a watch or a create, whose requests name no object.
  if (g.resourceNames?.length) return r.name !== "" && g.resourceNames.includes(r.name);
  return true;
}

/** A request as "verb group/resource[/sub] ns/name" ("core" for the core group, "-" for no namespace or name). */
export function requestKey(r: AuditRequest): string {
  return `${r.verb} ${r.group || "core"}/${resourceOf(r)} ${r.namespace || "-"}/${r.name || "-"}`;
}

/** The requests no grant allows, as requestKey names them. */
export function notAllowed(grants: readonly Grant[], requests: readonly AuditRequest[]): string[] {
  return [
    ...new Set(requests.filter((r) => !grants.some((g) => grantAllows(g, r))).map(requestKey)),
  ];
}

/**
 * The grants no request used: each (group, resource, verb, name) a rule names that no request in `requests` was
 * allowed by, as "verb group/resource" (with the name where the rule names objects).
 */
export function unusedGrants(
  grants: readonly Grant[],
  requests: readonly AuditRequest[],
): string[] {
  const out: string[] = [];
  for (const g of grants)
    for (const group of g.apiGroups)
      for (const resource of g.resources)
        for (const verb of g.verbs)
          for (const name of g.resourceNames?.length ? g.resourceNames : [""]) {
            const one: Grant = {
              namespace: g.namespace,
              apiGroups: [group],
              resources: [resource],
              verbs: [verb],
              ...(name ? { resourceNames: [name] } : {}),
            };
            if (!requests.some((r) => grantAllows(one, r)))
              out.push(`${verb} ${group || "core"}/${resource}${name ? ` ${name}` : ""}`);
          }
  return out;
}

/**
 * What Kubernetes' default ClusterRole system:basic-user, bound to every authenticated user, lets anyone ask about
 * itself: `kubectl auth can-i` creates a SelfSubjectAccessReview, which stores nothing.
 */
export const BASIC_USER: Grant = {
  namespace: null,
  apiGroups: ["authorization.k8s.io"],
  resources: ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
  verbs: ["create"],
};

/** The requests that wrote (create, update, patch, delete, deletecollection); a review, which stores nothing, is none. */
export function writes(requests: readonly AuditRequest[]): AuditRequest[] {
  return requests.filter(
    (r) =>
      /^(create|update|patch|delete|deletecollection)$/.test(r.verb) && !grantAllows(BASIC_USER, r),
  );
}
