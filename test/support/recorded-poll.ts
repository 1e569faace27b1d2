// What one migration poll reads on a kubectl-only cluster, answered from the kubespray-2.18 lab's recorded output
// (test/fixtures/lab): the Calico CRDs, calico-config with the DaemonSet, the Nodes, and calico-node's pods. The
// Nodes' lean read (jsonpath) is rendered from the recorded `kubectl get nodes -o json` (test/support/lean.ts).

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Json } from "../../src/cluster/decode.js";
import type { CommandResult, CommandRunner } from "../../src/cluster/runner.js";
import { leanNodesOf, leanPods } from "./lean.js";
import { FIXTURES } from "./recorded.js";

const PROFILE = join(FIXTURES, "kubespray-2.18");
const read = (file: string): string => readFileSync(join(PROFILE, file), "utf8");

function listOf(...files: string[]): string {
  const objects = files.flatMap((f) => {
    const o = JSON.parse(read(f)) as { kind: string; items?: unknown[] };
    return o.items ?? [o];
  });
  return JSON.stringify({ apiVersion: "v1", kind: "List", items: objects });
}

export function pod(node: string, ready: boolean): Json {
  return {
    kind: "Pod",
    metadata: { name: `calico-node-${node}` },
    spec: { nodeName: node },
    status: { conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
  };
}

/** Answers the calls a poll makes on a kubectl-only cluster; anything else fails the test. */
export class RecordedPoll implements CommandRunner {
  readonly calls: string[] = [];
  run(argv: readonly string[]): Promise<CommandResult> {
    const line = argv.join(" ");
    this.calls.push(line);
    const ok = (stdout: string): Promise<CommandResult> =>
      Promise.resolve({ rc: 0, stdout, stderr: "", timedOut: false });
    if (argv[0] === "calicoctl")
      return Promise.resolve({ rc: 127, stdout: "", stderr: "not found", timedOut: false });
    if (line.includes("ippools.crd.projectcalico.org"))
      return ok(
        listOf(
          "kubectl-get-ippools.json",
          "kubectl-get-felixconfigurations.json",
          "kubectl-get-clusterinformations.json",
        ),
      );
    if (line.includes("configmap/calico-config daemonset/calico-node"))
      return ok(
        listOf(
          "kubectl-get-configmap-calico-config.json",
          "kubectl-get-daemonset-calico-node.json",
        ),
      );
    if (line.includes("get nodes -o jsonpath="))
      return ok(leanNodesOf(read("kubectl-get-nodes.json")));
    if (line.includes("get pods --selector k8s-app=calico-node -o go-template="))
      return ok(leanPods([pod("node-1", true), pod("node-2", true), pod("node-3", false)]));
    throw new Error(`unexpected command: ${line}`);
  }
}
