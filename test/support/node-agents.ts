// Which route agents run in a lab node's network namespace and who owns its routes, read from the host itself rather
// than from the lab kubelet's status file (which names the services of the node's current calico-node Pod, not a
// BIRD a Pod before it left running). The lab's nodes are network namespaces sharing the host's processes: a process
// is a node's when /proc/PID/ns/net is that namespace.

import { execa } from "execa";
import { readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";

const PREFIX = (): string => process.env.LAB_NETNS_PREFIX ?? "calab-";

/** The namespace's `net:[inode]` as /proc/PID/ns/net reads for a process in it. */
function namespaceId(node: string): string {
  return `net:[${statSync(`/run/netns/${PREFIX()}${node}`).ino}]`;
}

/** The processes named `names` (their comm) in each node's namespace: node -> "bird (pid 123)". */
export function processesIn(nodes: string[], names: string[]): Record<string, string[]> {
  const ids = new Map(nodes.map((n) => [namespaceId(n), n]));
  const out: Record<string, string[]> = Object.fromEntries(nodes.map((n) => [n, []]));
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      if (!names.includes(comm)) continue;
      const node = ids.get(readlinkSync(`/proc/${pid}/ns/net`));
      if (node) out[node]!.push(`${comm} (pid ${pid})`);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** BIRD (bird, bird6) in each node's namespace: empty lists when none runs. */
export function birdProcesses(nodes: string[]): Record<string, string[]> {
  return processesIn(nodes, ["bird", "bird6"]);
}

/**
 * The node's IPv4 routes to `cidr`'s blocks by the protocol that wrote them ("bird" for BIRD, "80" for Felix's
 * routes, "kernel", "static", ...): what put a route back when one comes back.
 */
export async function routesByProtocol(
  node: string,
  cidr: string,
): Promise<Record<string, string[]>> {
  const { stdout } = await execa("ip", [
    "-n",
    `${PREFIX()}${node}`,
    "-4",
    "route",
    "show",
    "root",
    cidr,
  ]);
  const out: Record<string, string[]> = {};
  for (const line of stdout.split("\n").filter((l) => l.trim() !== "")) {
    const proto = /\bproto (\S+)/.exec(line)?.[1] ?? "boot";
    (out[proto] ??= []).push(line.trim());
  }
  return out;
}
