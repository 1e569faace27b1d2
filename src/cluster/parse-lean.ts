// The migration poll's per-node kubectl reads, lean: kubectl prints only the fields the poll decides on, one line
// per object, instead of whole objects (issue 40: at 1000 nodes a calico-node Pod was 26.6 KB of JSON, a Node
// 4.4 KB). Each output opens with a line naming its format and closes with `end`, so an empty list, a truncated
// output or another program's output cannot pass for a list. Pure.
//
// Unambiguous by construction: the one field printed as raw text is a name the API server validates (a Node's name,
// a Pod's spec.nodeName: DNS subdomains, no whitespace); every other field is JSON (jsonpath prints maps and lists
// as JSON from kubectl 1.19 on, with no raw tab or newline) or a fixed word the template itself prints. A line with
// another number of fields, a name with whitespace or a field of another JSON type is an error naming the command.

import type { BlockAffinity } from "../calico/plan/fallback-routes.js";
import { parseCidr } from "../calico/shared/cidr.js";
import type { Json } from "./decode.js";
import { isObject } from "./decode.js";
import { DatastoreError } from "./errors.js";

const NODES_HEADER = "calico-encap nodes";
const PODS_HEADER = "calico-encap pods";
const END = "end";

/**
 * `kubectl get nodes -o jsonpath=...`: per Node its name, then its labels, annotations, taints and status.addresses
 * as JSON (a missing field prints nothing), tab-separated.
 */
export const NODES_JSONPATH =
  `${NODES_HEADER}{"\\n"}{range .items[*]}{.metadata.name}{"\\t"}{.metadata.labels}{"\\t"}` +
  `{.metadata.annotations}{"\\t"}{.spec.taints}{"\\t"}{.status.addresses}{"\\n"}{end}${END}{"\\n"}`;

/**
 * `kubectl get pods -o go-template=...`: per calico-node Pod its spec.nodeName, `deleting` when it has a
 * deletionTimestamp, and `ready` when its Ready condition is True, tab-separated.
 */
export const PODS_TEMPLATE =
  `${PODS_HEADER}{{"\\n"}}{{range .items}}{{with .spec.nodeName}}{{.}}{{end}}{{"\\t"}}` +
  `{{if .metadata.deletionTimestamp}}deleting{{end}}{{"\\t"}}` +
  `{{range .status.conditions}}{{if eq .type "Ready"}}{{if eq .status "True"}}ready{{end}}{{end}}{{end}}` +
  `{{"\\n"}}{{end}}${END}{{"\\n"}}`;

/** What a calico-node Pod says of its node. */
export interface PodReadiness {
  nodeName: string;
  deleting: boolean;
  ready: boolean;
}

const NAME = /^[^\s]+$/;

/** The lines between the header and `end`, or an error saying what was expected. */
function body(argv: readonly string[], stdout: string, header: string, expected: string): string[] {
  const lines = stdout.split("\n");
  if (lines.at(-1) === "") lines.pop();
  if (lines[0] !== header || lines.at(-1) !== END || lines.length < 2)
    throw DatastoreError.unparsable(argv, stdout, expected);
  return lines.slice(1, -1);
}

function fields(argv: readonly string[], line: string, count: number, expected: string): string[] {
  const f = line.split("\t");
  if (f.length !== count) throw DatastoreError.unparsable(argv, line, expected);
  return f;
}

const NODES_EXPECTED =
  `"${NODES_HEADER}", a line per Node (name, labels, annotations, taints, addresses as JSON; tab-separated) ` +
  `and "${END}" (kubectl 1.19 or later)`;

/** The Nodes of a lean read, as the fields of Node objects parseNode and parseKubeNode read. */
export function parseLeanNodes(argv: readonly string[], stdout: string): Json[] {
  return body(argv, stdout, NODES_HEADER, NODES_EXPECTED).map((line) => {
    const [name = "", ...rest] = fields(argv, line, 5, NODES_EXPECTED);
    const [labels, annotations, taints, addresses] = rest.map((text, i) => {
      if (text === "") return undefined;
      let value: unknown;
      try {
        value = JSON.parse(text) as unknown;
      } catch {
        throw DatastoreError.unparsable(argv, line, NODES_EXPECTED);
      }
      if (i < 2 ? !isObject(value) : !Array.isArray(value))
        throw DatastoreError.unparsable(argv, line, NODES_EXPECTED);
      return value;
    });
    if (!NAME.test(name)) throw DatastoreError.unparsable(argv, line, NODES_EXPECTED);
    return {
      kind: "Node",
      metadata: { name, labels: labels ?? {}, annotations: annotations ?? {} },
      spec: { taints: taints ?? [] },
      status: { addresses: addresses ?? [] },
    };
  });
}

const PODS_EXPECTED =
  `"${PODS_HEADER}", a line per Pod (node name, "deleting" or nothing, "ready" or nothing; tab-separated) ` +
  `and "${END}"`;

/** The calico-node Pods of a lean read. */
export function parseLeanPods(argv: readonly string[], stdout: string): PodReadiness[] {
  return body(argv, stdout, PODS_HEADER, PODS_EXPECTED).map((line) => {
    const [nodeName = "", deleting = "", ready = ""] = fields(argv, line, 3, PODS_EXPECTED);
    if (
      (nodeName !== "" && !NAME.test(nodeName)) ||
      !["", "deleting"].includes(deleting) ||
      !/^(ready)*$/.test(ready)
    )
      throw DatastoreError.unparsable(argv, line, PODS_EXPECTED);
    return { nodeName, deleting: deleting !== "", ready: ready !== "" };
  });
}

/** Node names whose calico-node pod is Ready and not being deleted. */
export function readyNodes(pods: readonly PodReadiness[]): Set<string> {
  return new Set(pods.filter((p) => p.ready && !p.deleting && p.nodeName).map((p) => p.nodeName));
}

const AFFINITIES_HEADER = "calico-encap blockaffinities";

/**
 * `kubectl get blockaffinities.crd.projectcalico.org -o jsonpath=...`: per IPAM block affinity its node, block CIDR,
 * state and deleted flag, tab-separated (stop_before: pool_switch's one read, fallback-routes.ts).
 */
export const AFFINITIES_JSONPATH =
  `${AFFINITIES_HEADER}{"\\n"}{range .items[*]}{.spec.node}{"\\t"}{.spec.cidr}{"\\t"}{.spec.state}{"\\t"}` +
  `{.spec.deleted}{"\\n"}{end}${END}{"\\n"}`;

const AFFINITIES_EXPECTED = `"${AFFINITIES_HEADER}", a line per BlockAffinity (node, cidr, state, deleted; tab-separated) and "${END}"`;

/** The block affinities of a lean read. */
export function parseLeanAffinities(argv: readonly string[], stdout: string): BlockAffinity[] {
  return body(argv, stdout, AFFINITIES_HEADER, AFFINITIES_EXPECTED).map((line) => {
    const [node = "", cidr = "", state = "", deleted = ""] = fields(
      argv,
      line,
      4,
      AFFINITIES_EXPECTED,
    );
    if (!NAME.test(node) || parseCidr(cidr) === null || !["", "true", "false"].includes(deleted))
      throw DatastoreError.unparsable(argv, line, AFFINITIES_EXPECTED);
    return { node, cidr, state, deleted: deleted === "true" };
  });
}
