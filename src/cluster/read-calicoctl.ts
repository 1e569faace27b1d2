// Calico's objects through calicoctl (or Kubespray's calicoctl.sh, which sets the datastore itself):
// one process for every kind, whatever the number of nodes.

import type { FelixFlags, Pool } from "../calico/shared/model.js";
import type { Json } from "./decode.js";
import { checkKind, field, items, parseJson } from "./decode.js";
import { DatastoreError } from "./errors.js";
import { calicoVersionOf, parsePool, splitFelix } from "./parse-calico.js";
import type { BatchCommand, CommandRunner } from "./runner.js";
import { RC_NOT_FOUND, runOptions } from "./runner.js";

export interface CalicoObjects {
  pools: Pool[];
  felixDefault: FelixFlags | null;
  felixNodes: Record<string, FelixFlags>;
  calicoVersion: string | null;
}

/** Why the datastore has no Calico, from calicoctl's error, or null when the error is something else. */
export function calicoctlAbsence(stderr: string): string | null {
  if (
    /could not find the requested resource|no matches for kind|the server doesn't have a resource type/i.test(
      stderr,
    )
  )
    return "the Calico CRDs are not installed";
  return null;
}

export type CalicoctlRead =
  | { kind: "objects"; objects: CalicoObjects }
  | { kind: "absent"; reason: string }
  | { kind: "no-calicoctl" };

/** The kinds calicoctl reads, in the order of its request and of its answer. */
const KINDS = ["IPPool", "FelixConfiguration", "ClusterInformation"] as const;

/**
 * The one read: `calicoctl get -f - -o json` with a request on stdin that names each kind without a name, which
 * calicoctl lists (common/resources.go: a resource without a name is a GetOrList). It prints one list per kind, in
 * the request's order, as a JSON array (printer.go prints an array for more than one result). One process instead
 * of one per kind: on a 2-core node, four Go processes at once took longer than the slowest alone (FIGURES).
 */
export function calicoctlRead(calicoctl: string, timeoutSeconds: number): BatchCommand {
  return {
    argv: [calicoctl, "get", "-f", "-", "-o", "json"],
    timeoutSeconds,
    stdin: KINDS.map((k) => `apiVersion: projectcalico.org/v3\nkind: ${k}\n`).join("---\n"),
  };
}

/** The read as an error names it: its argv and what it asked on stdin. */
function named(read: BatchCommand): string[] {
  return [...read.argv, `(${KINDS.join(", ")} on stdin)`];
}

/** calicoctl's answer: one list per kind, in order. */
function decodeLists(argv: readonly string[], stdout: string): Json[] {
  const expected = `a JSON array of ${KINDS.map((k) => `${k}List`).join(", ")}`;
  const value = parseJson(argv, stdout, expected);
  if (!Array.isArray(value) || value.length !== KINDS.length)
    throw DatastoreError.unparsable(argv, stdout, expected);
  return KINDS.map((k, i) => checkKind(argv, stdout, value[i], [`${k}List`]));
}

export async function readWithCalicoctl(
  runner: CommandRunner,
  calicoctl: string,
  timeoutSeconds: number,
): Promise<CalicoctlRead> {
  const read = calicoctlRead(calicoctl, timeoutSeconds);
  const argv = named(read);
  const r = await runner.run(read.argv, runOptions(read));
  if (r.rc === RC_NOT_FOUND) return { kind: "no-calicoctl" };
  if (r.rc !== 0) {
    const absent = calicoctlAbsence(r.stderr);
    if (absent) return { kind: "absent", reason: absent };
    throw DatastoreError.failed(
      argv,
      r,
      "Check the calicoctl path and its datastore settings (calicoctl.sh sets them for Kubespray), and that it can read IPPool, FelixConfiguration and ClusterInformation.",
    );
  }
  const [pools, felix, info] = decodeLists(argv, r.stdout).map(items) as [Json[], Json[], Json[]];
  if (pools.length === 0) return { kind: "absent", reason: "the datastore has no IPPool" };
  const clusterInfo = info.find((x) => field(x, "metadata", "name") === "default");
  return {
    kind: "objects",
    objects: {
      pools: pools.map(parsePool),
      ...splitFelix(felix),
      calicoVersion: clusterInfo ? calicoVersionOf(clusterInfo) : null,
    },
  };
}
