// The data plane's I/O half: reads each node namespace (one `ip -json -batch` and one `bridge -json` per node),
// plans with plan.ts, and writes with one `ip -batch` (and, when FDB entries change, one `bridge -batch`).
// Nodes are handled in parallel; a node whose namespace does not exist (beyond LAB_DATAPLANE_NODES) is skipped.

import { execa } from "execa";
import { existsSync } from "node:fs";
import type { NodePlan } from "./plan.js";
import { parseObserved, planNode, splitJsonLines, validateSpec } from "./plan.js";
import type { ObservedNode } from "./plan.js";
import type { DataplaneSpec } from "./spec.js";

export interface ApplyOptions {
  /** Namespace of node N is `${netnsPrefix}${N}`, e.g. calab-node-1. */
  netnsPrefix: string;
  /** Called with each node's plan before it runs (for logs and measurements). */
  onPlan?: (node: string, netns: string, plan: NodePlan) => void;
}

export function netnsOf(prefix: string, node: string): string {
  return `${prefix}${node}`;
}

export function netnsExists(netns: string): boolean {
  return existsSync(`/run/netns/${netns}`);
}

async function run(cmd: string, args: string[], input?: string): Promise<string> {
  const r = await execa(cmd, args, { input, reject: false });
  if (r.exitCode !== 0) {
    const shown = input ? `\n--- input ---\n${input}` : "";
    throw new Error(
      `${cmd} ${args.join(" ")} exited ${r.exitCode}: ${r.stderr || r.stdout}${shown}`,
    );
  }
  return r.stdout;
}

/** What one namespace holds now. */
export async function readNode(netns: string): Promise<ObservedNode> {
  const [ipOut, fdbOut] = await Promise.all([
    run(
      "ip",
      ["-n", netns, "-json", "-details", "-batch", "-"],
      "address show\nneigh show\nroute show table main\n",
    ),
    run("bridge", ["-n", netns, "-json", "fdb", "show"]),
  ]);
  const [addr, neigh, route] = splitJsonLines(ipOut);
  const fdb: unknown = fdbOut.trim() === "" ? [] : JSON.parse(fdbOut);
  return parseObserved(addr, neigh, route, fdb);
}

/** Makes each node namespace match the spec exactly (adds what is missing, removes what is extra). */
export async function applyDataplane(spec: DataplaneSpec, opts: ApplyOptions): Promise<void> {
  validateSpec(spec);
  await Promise.all(
    spec.nodes.map(async (node) => {
      const netns = netnsOf(opts.netnsPrefix, node.name);
      if (!netnsExists(netns)) return;
      const plan = planNode(node, spec.vxlan, await readNode(netns));
      opts.onPlan?.(node.name, netns, plan);
      if (plan.ip.length > 0)
        await run("ip", ["-n", netns, "-batch", "-"], plan.ip.join("\n") + "\n");
      if (plan.bridge.length > 0)
        await run("bridge", ["-n", netns, "-batch", "-"], plan.bridge.join("\n") + "\n");
    }),
  );
}
