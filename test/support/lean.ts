// What kubectl prints for the poll's lean reads (src/cluster/parse-lean.ts), rendered from the objects of a
// recorded `-o json` read: a stand-in for kubectl's jsonpath and go-template evaluation, so the fixtures recorded
// whole (test/fixtures/lab) answer the lean reads. test/unit/cluster/parse-lean.test.ts checks this rendering
// against kubectl's own output, recorded on the lab at the same moment as the JSON (test/fixtures/lean).

import type { Json } from "../../src/cluster/decode.js";
import { field, isObject, str } from "../../src/cluster/decode.js";

/** Go's json.Marshal of a decoded JSON value: keys sorted, <, > and & escaped as in HTML-safe output. */
function goJson(value: unknown): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : isObject(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted(v[k])]),
          )
        : v;
  return JSON.stringify(sorted(value))
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026");
}

const jsonOrNothing = (v: unknown): string => (v === undefined ? "" : goJson(v));

/** `kubectl get nodes -o jsonpath=NODES_JSONPATH` over these Node objects. */
export function leanNodes(nodes: readonly Json[]): string {
  const lines = nodes.map((n) =>
    [
      str(field(n, "metadata", "name")) ?? "",
      jsonOrNothing(field(n, "metadata", "labels")),
      jsonOrNothing(field(n, "metadata", "annotations")),
      jsonOrNothing(field(n, "spec", "taints")),
      jsonOrNothing(field(n, "status", "addresses")),
    ].join("\t"),
  );
  return ["calico-encap nodes", ...lines, "end", ""].join("\n");
}

/** `kubectl get pods -o go-template=PODS_TEMPLATE` over these Pod objects. */
export function leanPods(pods: readonly Json[]): string {
  const lines = pods.map((p) => {
    const conditions = field(p, "status", "conditions");
    const ready = (Array.isArray(conditions) ? conditions : [])
      .filter((c) => isObject(c) && c.type === "Ready" && c.status === "True")
      .map(() => "ready")
      .join("");
    const node = field(p, "spec", "nodeName");
    return [
      typeof node === "string" ? node : "",
      field(p, "metadata", "deletionTimestamp") ? "deleting" : "",
      ready,
    ].join("\t");
  });
  return ["calico-encap pods", ...lines, "end", ""].join("\n");
}

/** The lean output of a recorded `-o json` list read: the items of `text`. */
export const leanNodesOf = (text: string): string =>
  leanNodes(((JSON.parse(text) as Json).items as Json[] | undefined) ?? []);
