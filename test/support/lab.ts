// The lab from the tests' side: bring it up with a seed profile, read .lab/env, run its kubectl and calicoctl.sh.

import { execa } from "execa";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeletStatus } from "../lab/kubelet/status.js";
import type { Status } from "../lab/standin/core.js";
import { REPO } from "./ansible.js";

export const LAB_SH = join(REPO, "test", "lab", "lab.sh");

export interface Lab {
  state: string;
  profile: string;
  kubeconfig: string;
  calicoctlSh: string;
  kubectl: string;
  env: Record<string, string>;
}

/** The variables `lab.sh up` wrote to <state>/env. */
export function readLabEnv(state = process.env.LAB_STATE ?? join(REPO, ".lab")): Lab {
  const env: Record<string, string> = {};
  for (const line of readFileSync(join(state, "env"), "utf8").split("\n")) {
    const m = /^export ([A-Z_]+)=(.*)$/.exec(line);
    if (m?.[1] && m[2] !== undefined && m[1] !== "PATH") env[m[1]] = m[2];
  }
  const need = (k: string): string => {
    const v = env[k];
    if (v === undefined) throw new Error(`${state}/env has no ${k}`);
    return v;
  };
  return {
    state,
    profile: need("LAB_PROFILE"),
    kubeconfig: need("KUBECONFIG"),
    calicoctlSh: need("LAB_CALICOCTL_SH"),
    kubectl: join(need("LAB_BIN_DIR"), "kubectl"),
    env,
  };
}

/**
 * What plays the nodes: the real calico-node under the lab kubelet (the default), or the stand-in, a model of
 * calico-node written here whose figures are statements about the model. STILL_ON_STANDIN says why a test file is
 * still on the model.
 */
export type CalicoNode = "real" | "standin";

/**
 * VXLAN -> IPIP rolls calico-node to backend bird one node at a time (Kubespray's maxUnavailable 20 % is one pod of
 * three). On the real calico-node the first BIRD pod never turns Ready: -bird-ready wants its BGP peers established
 * and the other nodes run no BIRD yet (node/pkg/health/health.go, checkBIRDReady), so the rollout stalls and the
 * migration rolls back. Test files that move a lab towards BIRD stay on the stand-in until the migration rolls
 * calico-node in a way that can finish.
 */
export const STILL_ON_STANDIN =
  "moves the lab VXLAN -> IPIP/bird, whose one-by-one calico-node rollout stalls on the real calico-node with 3 nodes";

/** Restarts the lab seeded with a profile (lab.sh down, then up). */
export async function labUp(profile: string, nodes = 3, calicoNode?: CalicoNode): Promise<Lab> {
  await execa("bash", [LAB_SH, "down"], { reject: false });
  await execa("bash", [LAB_SH, "up"], {
    env: {
      PROFILE: profile,
      NODES: String(nodes),
      ...(calicoNode ? { LAB_CALICO_NODE: calicoNode } : {}),
    },
    stdio: "inherit",
  });
  return readLabEnv();
}

export async function labDown(): Promise<void> {
  await execa("bash", [LAB_SH, "down"], { reject: false });
}

/** The datastore options that reach the lab, with a quick poll for calico_encap_migrate. */
export function migrateArgs(lab: Lab): Record<string, unknown> {
  return {
    calicoctl_path: lab.calicoctlSh,
    kubectl_path: lab.kubectl,
    kubeconfig: lab.kubeconfig,
    wait_sleep: 1,
    wait_timeout: 120,
  };
}

/** Runs the lab's real kubectl with its admin kubeconfig. */
export async function kubectl(lab: Lab, ...args: string[]): Promise<string> {
  const r = await execa(lab.kubectl, ["--kubeconfig", lab.kubeconfig, ...args]);
  return r.stdout;
}

export async function calicoctl(lab: Lab, ...args: string[]): Promise<string> {
  const r = await execa(lab.calicoctlSh, args);
  return r.stdout;
}

/** resourceVersion of every object the check reads, to prove it wrote nothing. */
export async function resourceVersions(lab: Lab): Promise<Record<string, string>> {
  const out = await kubectl(
    lab,
    "get",
    "ippools.crd.projectcalico.org,felixconfigurations.crd.projectcalico.org,clusterinformations.crd.projectcalico.org",
    "-o",
    "json",
  );
  const calico = JSON.parse(out) as {
    items: { kind: string; metadata: { name: string; resourceVersion: string } }[];
  };
  const k8s = JSON.parse(
    await kubectl(
      lab,
      "-n",
      "kube-system",
      "get",
      "configmap/calico-config",
      "daemonset/calico-node",
      "-o",
      "json",
    ),
  ) as typeof calico;
  return Object.fromEntries(
    [...calico.items, ...k8s.items].map((o) => [
      `${o.kind}/${o.metadata.name}`,
      o.metadata.resourceVersion,
    ]),
  );
}

/** <LAB_STATE>/standin/status.json: the stand-in's Status plus its own process figures. */
export type StandinStatus = Status & { standin?: { rssMiB?: number } };

/**
 * What runs on the nodes: the lab kubelet's status (real calico-node) when it runs, else the stand-in's. Both carry
 * the same summary (pods, podsReady, birdRunning, vxlanDevices, tunnel addresses) and per-node podReady, backend,
 * vxlanDevice, routes.
 */
export function nodesStatus(lab: Lab): KubeletStatus | StandinStatus {
  const real = join(lab.state, "kubelet", "status.json");
  if (existsSync(real)) return JSON.parse(readFileSync(real, "utf8")) as KubeletStatus;
  return JSON.parse(
    readFileSync(join(lab.state, "standin", "status.json"), "utf8"),
  ) as StandinStatus;
}

/** Whether the lab runs the real calico-node (the lab kubelet) rather than the stand-in. */
export function realCalicoNode(lab: Lab): boolean {
  return existsSync(join(lab.state, "kubelet", "status.json"));
}

/**
 * The bound a migration's loss is held to, from its own result: the pool switch step's duration plus 1 s (the
 * window opens at the pool write and closes once every node routes the pool the new way, inside that step).
 */
export function poolSwitchWindowMs(steps: { title: string; seconds: number }[]): number {
  const step = steps.find((s) => /Switch IPPool/.test(s.title));
  if (!step) throw new Error(`no pool switch among the steps: ${JSON.stringify(steps)}`);
  return (step.seconds + 1) * 1000;
}

/** Polls until check() is true; fails with what was last seen after timeoutMs. */
export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 60000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not readable yet
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const PROBER = join(REPO, "dist", "test", "lab", "prober", "control.js");

export interface ProberFigures {
  /** Running agents: one per pod (and one per node for host to remote pod probes on the real calico-node). */
  agents: number;
  sent: number;
  lost: number;
  longest_gap_ms: number;
  rate_pps: number;
  pairs: { from: string; to: string; sent: number; lost: number; longest_gap_ms: number }[];
}

/**
 * Starts the prober: with the real calico-node, on the prober's pods (pod to pod, and host to remote pod); on a
 * stand-in lab, on the pod addresses of the data plane the stand-in programmed.
 */
export async function startProber(lab: Lab, maxSeconds = 1800): Promise<void> {
  const pods = join(lab.state, "kubelet", "pods.json");
  await execa("node", [
    PROBER,
    "start",
    ...(existsSync(pods)
      ? ["--pods", pods]
      : ["--spec", join(lab.state, "dataplane", "desired.json")]),
    "--state",
    lab.state,
    "--max-seconds",
    String(maxSeconds),
  ]);
}

export async function resetProber(lab: Lab): Promise<void> {
  await execa("node", [PROBER, "reset", "--state", lab.state]);
  await new Promise((r) => setTimeout(r, 1200));
}

export async function readProber(lab: Lab): Promise<ProberFigures> {
  const r = await execa("node", [PROBER, "read", "--state", lab.state]);
  return JSON.parse(r.stdout) as ProberFigures;
}

/** Whether vxlan.calico exists in a node's network namespace (the real kernel device). */
export async function hasVxlanDevice(
  node: string,
  prefix = process.env.LAB_NETNS_PREFIX ?? "calab-",
): Promise<boolean> {
  const r = await execa("ip", ["-n", `${prefix}${node}`, "link", "show", "vxlan.calico"], {
    reject: false,
  });
  return r.exitCode === 0;
}

export async function nodeAnnotations(lab: Lab): Promise<Record<string, Record<string, string>>> {
  const nodes = JSON.parse(await kubectl(lab, "get", "nodes", "-o", "json")) as {
    items: { metadata: { name: string; annotations?: Record<string, string> } }[];
  };
  return Object.fromEntries(
    nodes.items.map((n) => [n.metadata.name, n.metadata.annotations ?? {}]),
  );
}
