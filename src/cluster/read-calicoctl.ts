// Calico's objects through calicoctl (or Kubespray's calicoctl.sh, which sets the datastore itself):
// one process per kind, whatever the number of nodes.

import type { FelixFlags, Pool } from "../calico/shared/model.js";
import { decodeKind, items } from "./decode.js";
import { DatastoreError } from "./errors.js";
import { calicoVersionOf, parsePool, splitFelix } from "./parse-calico.js";
import type { CommandRunner } from "./runner.js";
import { RC_NOT_FOUND } from "./runner.js";

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

/** The argv of each read, IPPools first (an observation sends them in one batch). */
export function calicoctlReads(calicoctl: string): [string[], string[], string[]] {
  return [
    [calicoctl, "get", "ippool", "-o", "json"],
    [calicoctl, "get", "felixconfiguration", "-o", "json"],
    [calicoctl, "get", "clusterinformation", "default", "-o", "json"],
  ];
}

export async function readWithCalicoctl(
  runner: CommandRunner,
  calicoctl: string,
  timeoutSeconds: number,
): Promise<CalicoctlRead> {
  const [poolsArgv, felixArgv, infoArgv] = calicoctlReads(calicoctl);
  const run = (argv: string[]) => runner.run(argv, { timeoutSeconds });
  // All three at once; FelixConfiguration and ClusterInformation only count when there is a pool.
  const [pools, felix, info] = await Promise.all([run(poolsArgv), run(felixArgv), run(infoArgv)]);
  if (pools.rc === RC_NOT_FOUND) return { kind: "no-calicoctl" };
  if (pools.rc !== 0) {
    const absent = calicoctlAbsence(pools.stderr);
    if (absent) return { kind: "absent", reason: absent };
    throw DatastoreError.failed(
      poolsArgv,
      pools,
      "Check the calicoctl path and its datastore settings (calicoctl.sh sets them for Kubespray).",
    );
  }
  const poolList = items(decodeKind(poolsArgv, pools.stdout, ["IPPoolList"]));
  if (poolList.length === 0) return { kind: "absent", reason: "the datastore has no IPPool" };
  if (felix.rc !== 0)
    throw DatastoreError.failed(
      felixArgv,
      felix,
      "Check that calicoctl can read FelixConfiguration.",
    );
  const felixObjects = items(decodeKind(felixArgv, felix.stdout, ["FelixConfigurationList"]));
  let calicoVersion: string | null = null;
  if (info.rc === 0)
    calicoVersion = calicoVersionOf(decodeKind(infoArgv, info.stdout, ["ClusterInformation"]));
  else if (!/resource does not exist/i.test(info.stderr))
    throw DatastoreError.failed(
      infoArgv,
      info,
      "Check that calicoctl can read ClusterInformation.",
    );
  return {
    kind: "objects",
    objects: { pools: poolList.map(parsePool), ...splitFelix(felixObjects), calicoVersion },
  };
}
