// Starting, resetting, reading and stopping the prober agents (one per node namespace), for tests and lab.sh.
//
//   node dist/test/lab/prober/control.js start --pods PODS.json | --spec SPEC.json [--prefix calab-] [--state DIR] [--max-seconds N] [--recv-buffer BYTES]
//   node dist/test/lab/prober/control.js reset|read|stop [--state DIR]
//
// State defaults to $LAB_STATE, else <repo>/.lab; the prefix to $LAB_NETNS_PREFIX, else calab-.

import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { DataplaneSpec } from "../dataplane/spec.js";
import type { ProbePod } from "../kubelet/status.js";
import type { AgentConfig, Family, Outage, ProberSummary } from "./types.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const AGENT = join(HERE, "agent.js");
const REPO = resolve(HERE, "..", "..", "..", "..");

export interface ProberOptions {
  state: string;
  netnsPrefix: string;
  port?: number;
  intervalMs?: number;
  timeoutMs?: number;
  /** Default 2 hours. */
  maxSeconds?: number;
  /** The agents' socket receive buffer; default the agent's, 4 MiB. */
  recvBufferBytes?: number;
}

export interface PairReport {
  from: string;
  to: string;
  /** The sending agent's address and the address it probes: which routes a probe and its echo take. */
  from_address: string;
  to_address: string;
  family: Family;
  sent: number;
  received: number;
  lost: number;
  pending: number;
  longest_gap_ms: number;
  /** The longest gap with a lost probe in it: the data plane's outage, 0 when none was lost (outage-gap.ts). */
  longest_outage_ms: number;
  first_lost_at: string | null;
  last_lost_at: string | null;
  outages: Outage[];
  rate_pps: number;
}

/** The loss figures of a set of pairs: the whole run, or one address family's pairs. */
export interface LossFigures {
  /** How many pairs these figures sum. */
  pair_count: number;
  sent: number;
  lost: number;
  /** The longest gap between probes that came back, the agents' own stalls included. */
  longest_gap_ms: number;
  /**
   * The longest gap with a lost probe in it, of any pair: what a bound on an outage's length reads. A stall of the
   * prober with nothing lost is in longest_gap_ms, not here (issue 50).
   */
  longest_outage_ms: number;
  first_lost_at: string | null;
  last_lost_at: string | null;
  rate_pps: number;
}

export interface ProberReport extends LossFigures {
  agents: number;
  sent: number;
  lost: number;
  longest_gap_ms: number;
  /** When the first and the last lost probe of any pair were sent (ISO 8601); null when none was lost. */
  first_lost_at: string | null;
  last_lost_at: string | null;
  rate_pps: number;
  pairs: PairReport[];
  /** The same figures per address family; ipv6 only when some agent probes over IPv6 (dual-stack labs). */
  families: { ipv4: LossFigures; ipv6?: LossFigures };
  /**
   * UDP datagrams the agents' namespaces dropped since the reset because an agent's socket buffer was full
   * (RcvbufErrors, summed once per namespace and family): probes and echoes the network delivered and a stalled
   * agent lost. Null when no agent says (older agents, a kernel without the counter).
   */
  rcvbuf_errors: number | null;
  /** The smallest receive buffer the kernel granted an agent's socket (bytes); null when no agent says. */
  rcvbuf_bytes: number | null;
  summaries: ProberSummary[];
}

const dirOf = (state: string): string => join(state, "prober");
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Whether the agent runs. An agent that exited but was not reaped (a zombie) is not: agents are started detached, so
 * PID 1 becomes their parent, and a PID 1 that does not reap leaves zombies, to which kill(pid, 0) answers yes
 * (test/lab/pid.sh says the same for the lab's shell).
 */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

function pids(state: string): { node: string; pid: number }[] {
  const dir = dirOf(state);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".pid"))
    .map((f) => ({ node: f.slice(0, -4), pid: Number(readFileSync(join(dir, f), "utf8").trim()) }))
    .filter((p) => Number.isInteger(p.pid) && p.pid > 0);
}

function readSummaries(state: string): ProberSummary[] {
  const dir = dirOf(state);
  if (!existsSync(dir)) return [];
  const out: ProberSummary[] = [];
  for (const f of readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()) {
    try {
      out.push(JSON.parse(readFileSync(join(dir, f), "utf8")) as ProberSummary);
    } catch {
      // being renamed into place; the caller retries
    }
  }
  return out;
}

/** One agent: where it runs, the address it binds, and which agents it probes (by name). */
export interface ProbeAgent {
  name: string;
  netns: string;
  address: string;
  /** Absent: ipv4. */
  family?: Family;
  targets: string[];
}

/** Stand-in labs: one agent per node namespace, on the pod address the stand-in's data plane put on lo. */
export function agentsFromSpec(spec: DataplaneSpec, netnsPrefix: string): ProbeAgent[] {
  const nodes = spec.nodes
    .map((n) => ({ name: n.name, netns: `${netnsPrefix}${n.name}`, address: n.podAddresses[0] }))
    .filter(
      (n): n is { name: string; netns: string; address: string } =>
        n.address !== undefined && existsSync(`/run/netns/${n.netns}`),
    )
    .map((n) => ({ ...n, address: n.address.split("/")[0] ?? n.address }));
  return nodes.map((n) => ({ ...n, targets: nodes.filter((o) => o !== n).map((o) => o.name) }));
}

/**
 * Real calico-node labs: the prober's pods (<LAB_STATE>/kubelet/pods.json, networked by the Calico CNI plugin).
 * Pod to pod across every ordered node pair (agent "node-1" in pod prober-node-1's namespace), and host to remote
 * pod (agent "node-1.host" in node-1's own namespace, probing the other nodes' pods). When the pods have IPv6
 * addresses too (dual-stack), the same pairs over IPv6, by agents of their own: "node-1.v6" (pod) and
 * "node-1.host.v6" (the node's IPv6 address).
 */
export function agentsFromPods(pods: ProbePod[]): ProbeAgent[] {
  const v6: ProbePod[] = pods
    .filter((p) => p.podIP6)
    .map((p) => ({
      ...p,
      node: `${p.node}.v6`,
      podIP: p.podIP6 ?? null,
      hostIP: p.hostIP6 ?? null,
    }));
  const v6Agents = agentsOfFamily(v6).map((a) => ({
    ...a,
    // agentsOfFamily names host agents "<pod agent>.host": node-1.v6.host becomes node-1.host.v6
    name: a.name.replace(/\.v6\.host$/, ".host.v6"),
    family: "ipv6" as const,
  }));
  return [...agentsOfFamily(pods), ...v6Agents];
}

function agentsOfFamily(pods: ProbePod[]): ProbeAgent[] {
  const ready = pods.filter((p) => p.podIP !== null && existsSync(`/run/netns/${p.netns}`));
  const podAgents: ProbeAgent[] = ready.map((p) => ({
    name: p.node,
    netns: p.netns,
    address: p.podIP ?? "",
    targets: ready.filter((o) => o.node !== p.node).map((o) => o.node),
  }));
  const hostAgents: ProbeAgent[] = ready
    .filter((p) => p.hostIP !== null && existsSync(`/run/netns/${p.nodeNetns}`))
    .map((p) => ({
      name: `${p.node}.host`,
      netns: p.nodeNetns,
      address: p.hostIP ?? "",
      targets: ready.filter((o) => o.node !== p.node).map((o) => o.node),
    }));
  return [...podAgents, ...hostAgents];
}

/** Starts the agents (stopping any running first). */
export async function startProber(agents: ProbeAgent[], opts: ProberOptions): Promise<void> {
  await stopProber(opts.state);
  const dir = dirOf(opts.state);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const nodes = agents;
  const byName = new Map(agents.map((a) => [a.name, a]));
  for (const n of nodes) {
    const cfg: AgentConfig = {
      node: n.name,
      address: n.address,
      ...(n.family === "ipv6" ? { family: n.family } : {}),
      port: opts.port ?? 7946,
      intervalMs: opts.intervalMs ?? 10,
      timeoutMs: opts.timeoutMs ?? 1000,
      maxSeconds: opts.maxSeconds ?? 7200,
      ...(opts.recvBufferBytes ? { recvBufferBytes: opts.recvBufferBytes } : {}),
      out: join(dir, `${n.name}.json`),
      targets: n.targets.flatMap((t) => {
        const a = byName.get(t);
        return a ? [{ node: a.name, address: a.address }] : [];
      }),
    };
    const cfgFile = join(dir, `${n.name}.cfg`);
    writeFileSync(cfgFile, JSON.stringify(cfg, null, 2) + "\n");
    const log = openSync(join(dir, `${n.name}.log`), "a");
    // `nice` and `ip netns exec` exec the command, so the child's pid is the agent's. The agents are the measuring
    // instrument: at nice -10 a burst on the machine (the other lab slot starting its cluster) cannot hold their
    // echoes past timeoutMs and count probes lost that the network delivered. Felix, BIRD and the rest of
    // calico-node keep the default priority, so their own delays under load still show.
    const child = spawn(
      "nice",
      ["-n", "-10", "ip", "netns", "exec", n.netns, process.execPath, AGENT, "--config", cfgFile],
      { detached: true, stdio: ["ignore", log, log] },
    );
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start the prober agent in ${n.netns}`);
    writeFileSync(join(dir, `${n.name}.pid`), `${child.pid}\n`);
  }
  // Wait until every agent is bound to its pod address (or at least running, when the address is not there
  // yet), then start counting together so that nobody's first probes hit a peer still starting.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const s = readSummaries(opts.state);
    if (s.length === nodes.length && s.every((x) => x.bound)) break;
    if (Date.now() > deadline) {
      if (s.length === nodes.length) break;
      throw new Error(`prober agents did not start; see ${dir}/*.log`);
    }
    await sleep(50);
  }
  await resetProber(opts.state);
}

async function signalAndWait(
  state: string,
  signal: NodeJS.Signals,
  done: (s: ProberSummary, before: ProberSummary | undefined) => boolean,
): Promise<ProberSummary[]> {
  const before = new Map(readSummaries(state).map((s) => [s.node, s]));
  const running = pids(state).filter((p) => alive(p.pid));
  for (const p of running) process.kill(p.pid, signal);
  // An agent answers within a second on a quiet machine; on a loaded one (two labs and Kubespray's role at load 20)
  // one took more than 5 s, so the wait is long and the failure names who did not answer.
  const deadline = Date.now() + 30000;
  for (;;) {
    const now = readSummaries(state);
    const silent = running.filter((p) => {
      const s = now.find((x) => x.node === p.node);
      return s === undefined || !done(s, before.get(p.node));
    });
    if (silent.length === 0) return now;
    if (Date.now() > deadline)
      throw new Error(
        `prober agents did not answer ${signal} within 30 s: ${silent
          .map((p) => `${p.node} (pid ${p.pid}, ${alive(p.pid) ? "alive" : "gone"})`)
          .join(", ")}`,
      );
    await sleep(20);
  }
}

/** Zeroes every agent's counters (in-flight probes from before are ignored). */
export async function resetProber(state: string): Promise<void> {
  await signalAndWait(state, "SIGUSR1", (s, b) => b === undefined || s.epoch > b.epoch);
}

export function report(summaries: ProberSummary[]): ProberReport {
  const pairs: PairReport[] = summaries.flatMap((s) =>
    s.pairs.map((p) => ({
      from: s.node,
      to: p.to,
      from_address: s.address,
      to_address: p.address,
      family: s.family ?? "ipv4",
      sent: p.sent,
      received: p.received,
      lost: p.lost,
      pending: p.pending,
      longest_gap_ms: p.longest_gap_ms,
      // Agents older than the field: their longest gap, where they lost a probe.
      longest_outage_ms: p.longest_outage_ms ?? (p.lost > 0 ? p.longest_gap_ms : 0),
      first_lost_at: p.first_lost_at ?? null,
      last_lost_at: p.last_lost_at ?? null,
      outages: p.outages ?? [],
      rate_pps: p.rate_pps,
    })),
  );
  const v6 = pairs.filter((p) => p.family === "ipv6");
  return {
    agents: summaries.length,
    ...lossFigures(pairs),
    pairs,
    families: {
      ipv4: lossFigures(pairs.filter((p) => p.family === "ipv4")),
      ...(v6.length > 0 ? { ipv6: lossFigures(v6) } : {}),
    },
    rcvbuf_errors: rcvbufErrors(summaries),
    rcvbuf_bytes: smallestRcvbuf(summaries),
    summaries,
  };
}

function smallestRcvbuf(summaries: ProberSummary[]): number | null {
  const sizes = summaries.flatMap((s) =>
    typeof s.rcvbuf_bytes === "number" ? [s.rcvbuf_bytes] : [],
  );
  return sizes.length === 0 ? null : Math.min(...sizes);
}

/** RcvbufErrors of the agents' namespaces: agents sharing a namespace and family read one counter, counted once. */
export function rcvbufErrors(summaries: ProberSummary[]): number | null {
  const byNamespace = new Map<string, number>();
  for (const s of summaries) {
    const n = s.udp_rcvbuf_errors;
    if (typeof n !== "number") continue;
    const key = `${s.netns ?? s.node}/${s.family ?? "ipv4"}`;
    byNamespace.set(key, Math.max(byNamespace.get(key) ?? 0, n));
  }
  return byNamespace.size === 0 ? null : [...byNamespace.values()].reduce((a, n) => a + n, 0);
}

/** Sums a set of pairs: probes sent and lost, the longest gap, the first and last loss, the rate. */
export function lossFigures(pairs: PairReport[]): LossFigures {
  const times = (f: (p: PairReport) => string | null): string[] =>
    pairs
      .map(f)
      .filter((t): t is string => t !== null)
      .sort();
  const sum = (f: (p: PairReport) => number): number => pairs.reduce((a, p) => a + f(p), 0);
  return {
    pair_count: pairs.length,
    sent: sum((p) => p.sent),
    lost: sum((p) => p.lost),
    longest_gap_ms: pairs.reduce((a, p) => Math.max(a, p.longest_gap_ms), 0),
    longest_outage_ms: pairs.reduce((a, p) => Math.max(a, p.longest_outage_ms), 0),
    first_lost_at: times((p) => p.first_lost_at)[0] ?? null,
    last_lost_at: times((p) => p.last_lost_at).at(-1) ?? null,
    rate_pps: Math.round(sum((p) => p.rate_pps) * 10) / 10,
  };
}

/** Fresh figures: asks each running agent to write its summary now, then reads them all. */
export async function readProber(state: string): Promise<ProberReport> {
  const asked = new Date().toISOString();
  return report(await signalAndWait(state, "SIGUSR2", (s) => s.stopped || s.written_at >= asked));
}

/** Stops the agents (each writes a final summary, kept for reading). */
export async function stopProber(state: string): Promise<void> {
  const dir = dirOf(state);
  for (const p of pids(state)) {
    if (alive(p.pid)) process.kill(p.pid, "SIGTERM");
    for (let i = 0; i < 50 && alive(p.pid); i++) await sleep(50);
    if (alive(p.pid)) process.kill(p.pid, "SIGKILL");
    rmSync(join(dir, `${p.node}.pid`), { force: true });
  }
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function cli(): Promise<void> {
  const cmd = process.argv[2];
  const state = resolve(arg("--state") ?? process.env.LAB_STATE ?? join(REPO, ".lab"));
  switch (cmd) {
    case "start": {
      const specFile = arg("--spec");
      const podsFile = arg("--pods");
      const prefix = arg("--prefix") ?? process.env.LAB_NETNS_PREFIX ?? "calab-";
      let agents: ProbeAgent[];
      if (podsFile)
        agents = agentsFromPods(JSON.parse(readFileSync(podsFile, "utf8")) as ProbePod[]);
      else if (specFile)
        agents = agentsFromSpec(
          JSON.parse(readFileSync(specFile, "utf8")) as DataplaneSpec,
          prefix,
        );
      else
        throw new Error(
          "start needs --pods PODS.json (real calico-node) or --spec SPEC.json (stand-in)",
        );
      if (agents.length === 0) throw new Error("no agent to start: no pod address yet");
      const max = arg("--max-seconds");
      const recv = arg("--recv-buffer");
      await startProber(agents, {
        state,
        netnsPrefix: prefix,
        ...(max ? { maxSeconds: Number(max) } : {}),
        ...(recv ? { recvBufferBytes: Number(recv) } : {}),
      });
      return;
    }
    case "reset":
      return resetProber(state);
    case "stop":
      return stopProber(state);
    case "read": {
      const r: Partial<ProberReport> = await readProber(state);
      delete r.summaries;
      process.stdout.write(JSON.stringify(r, null, 2) + "\n");
      return;
    }
    default:
      process.stderr.write(
        "usage: control.js start --spec F [--prefix P] | reset | read | stop [--state DIR]\n",
      );
      process.exitCode = 2;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  cli().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
