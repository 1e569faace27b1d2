// Command stand-ins that replay what the lab's real calicoctl.sh and kubectl printed (test/fixtures/lab,
// recorded by `make fixtures`). kubectl's answers to the readers' combined calls are assembled from the
// recorded single-kind calls: the same objects, in one List, as kubectl prints for several kinds.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "./ansible.js";
import type { Answer, FakeTools } from "./fake-commands.js";
import {
  CALICOCTL_READ,
  CALICOCTL_REQUEST,
  fakeTools,
  KUBECTL_CALICO_CRDS,
  KUBECTL_KUBESPRAY_OBJECTS,
} from "./fake-commands.js";

export const FIXTURES = join(REPO, "test", "fixtures", "lab");
export const PROFILES = [
  "kubespray-2.18",
  "kubespray-2.19",
  "fresh",
  "crosssubnet",
  "dualstack",
  "pre-3.23",
  "etcd",
];

interface Recorded {
  name: string;
  rc: number;
  stdout_file?: string;
  stderr?: string;
  /** What the command read on stdin, when it read anything. */
  stdin?: string;
}

function recorded(profile: string): Map<string, Answer> {
  const dir = join(FIXTURES, profile);
  const manifest = JSON.parse(readFileSync(join(dir, "commands.json"), "utf8")) as {
    commands: Recorded[];
  };
  return new Map(
    manifest.commands.map((c) => {
      const file = c.stdout_file ? join(dir, c.stdout_file) : "";
      const stdout = file && existsSync(file) ? readFileSync(file, "utf8") : "";
      return [
        c.name,
        {
          rc: c.rc,
          stdout,
          stderr: c.stderr ?? "",
          ...(c.stdin === undefined ? {} : { stdin: c.stdin }),
        },
      ];
    }),
  );
}

function combineLists(answers: Answer[]): Answer {
  const failed = answers.find((a) => (a.rc ?? 0) !== 0);
  if (failed) return { rc: failed.rc ?? 1, stderr: failed.stderr ?? "" };
  const items = answers.flatMap(
    (a) => (JSON.parse(a.stdout ?? "{}") as { items?: unknown[] }).items ?? [],
  );
  return {
    stdout: JSON.stringify({
      apiVersion: "v1",
      kind: "List",
      items,
      metadata: { resourceVersion: "" },
    }),
  };
}

function existingObjects(answers: Answer[]): Answer {
  const items = answers
    .filter((a) => (a.rc ?? 0) === 0)
    .map((a) => JSON.parse(a.stdout ?? "{}") as unknown);
  return { stdout: items.length ? JSON.stringify({ apiVersion: "v1", kind: "List", items }) : "" };
}

/**
 * The tools as recorded in a profile. calicoctlProfile takes calicoctl.sh's answers from another profile: a
 * calicoctl.sh set up for another datastore than the cluster's (e.g. "fresh": an empty datastore).
 */
export function recordedTools(
  profile: string,
  kubeconfig: string,
  calicoctlProfile = profile,
): FakeTools {
  const lookup = (p: string) => {
    const r = recorded(p);
    return (name: string): Answer => {
      const a = r.get(name);
      if (!a) throw new Error(`fixture ${p} has no ${name}`);
      return a;
    };
  };
  const get = lookup(profile);
  const calicoctl = lookup(calicoctlProfile);
  const kinds = calicoctl("calicoctl-get-kinds");
  // The request recorded is the one the reader sends: the stand-in answers only that stdin.
  if (kinds.stdin !== CALICOCTL_REQUEST)
    throw new Error(
      `fixture ${calicoctlProfile}'s calicoctl-get-kinds was recorded with another request than read-calicoctl.ts sends: record the fixtures again (make fixtures)`,
    );
  return fakeTools(
    { [CALICOCTL_READ]: kinds },
    {
      [`--kubeconfig ${kubeconfig} ${KUBECTL_CALICO_CRDS}`]: combineLists([
        get("kubectl-get-ippools"),
        get("kubectl-get-felixconfigurations"),
        get("kubectl-get-clusterinformations"),
      ]),
      [`--kubeconfig ${kubeconfig} ${KUBECTL_KUBESPRAY_OBJECTS}`]: existingObjects([
        get("kubectl-get-configmap-calico-config"),
        get("kubectl-get-daemonset-calico-node"),
      ]),
    },
  );
}
