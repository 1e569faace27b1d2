// One prober agent per node namespace: `ip netns exec <ns> node dist/test/lab/prober/agent.js --config FILE`.
// It binds UDP on the node's pod address, sends a sequence-numbered probe to every other node's pod address
// every intervalMs (catching up after timer lag, so the rate holds), echoes the probes it receives, and keeps
// per pair: sent, received, lost (no echo within timeoutMs), and the longest gap between the send times of
// consecutive probes that came back. It writes its summary (see ProberSummary) every second, on SIGUSR2, and
// when it stops; SIGUSR1 resets the counters. It stops by itself after maxSeconds, and refuses to run in the
// machine's root network namespace, so it can only reach the lab's namespaces. An agent probes in one address
// family (its config's `family`, ipv4 unless said): a dual-stack node runs one agent per family.

import { createSocket } from "node:dgram";
import { readFileSync, readlinkSync, renameSync, writeFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { hex6 } from "./inet6.js";
import { OutageGaps } from "./outage-gap.js";
import { readRcvbufErrors } from "./snmp.js";
import type { AgentConfig, Family, PairSummary, ProberSummary } from "./types.js";

const MAGIC = 0xca1b;
const PROBE = 1;
const ECHO = 2;
const PACKET = 12; // magic u16, type u8, pad u8, epoch u32, seq u32
const DEFAULT_RECV_BUFFER = 4 * 1024 * 1024;
const MAX_CATCH_UP = 20; // after a longer stall the missed probes are skipped, not burst
const MAX_OUTAGES = 100; // per pair; later runs of loss still count in lost, first_lost_at and last_lost_at
const OUTAGE_JOIN = 3; // lost probes sent within this many intervals of each other belong to one outage

interface Pair {
  to: string;
  address: string;
  seq: number;
  sent: number;
  received: number;
  lost: number;
  late: number;
  sendErrors: number;
  /** seq -> send time (ms, monotonic); a Map keeps insertion (= seq) order for expiry. */
  pending: Map<number, number>;
  lastOkSentAt: number;
  lastLostSentAt: number;
  /** Send time of the first probe lost since the reset; null while none is. */
  firstLostSentAt: number | null;
  longestGap: number;
  /** The longest gap with a lost probe in it (outage-gap.ts): the network's outage, not the agent's stall. */
  gaps: OutageGaps;
  /** Seqs of the pending probes sent as catch-up: a tick's rounds after its first, owed from before that tick. */
  caughtUp: Set<number>;
  /** Runs of lost probes (send times), oldest first, at most MAX_OUTAGES; caughtUp counts those sent as catch-up. */
  outages: { from: number; to: number; lost: number; caughtUp: number }[];
}

function configFromArgs(): AgentConfig {
  const i = process.argv.indexOf("--config");
  const file = i >= 0 ? process.argv[i + 1] : undefined;
  if (!file) throw new Error("usage: agent.js --config FILE");
  return JSON.parse(readFileSync(file, "utf8")) as AgentConfig;
}

/** A process's network namespace (`net:[inode]`); "" when it cannot be read. Agents sharing one read the same UDP
 * counters. */
function netnsOf(pid: "self" | "1"): string {
  try {
    return readlinkSync(`/proc/${pid}/ns/net`);
  } catch {
    return "";
  }
}

function main(): void {
  const cfg = configFromArgs();
  const family: Family = cfg.family ?? "ipv4";
  const netns = netnsOf("self");
  if (netns !== "" && netns === netnsOf("1"))
    throw new Error("the prober agent runs only inside a lab node namespace");
  const now = (): number => performance.now();
  const wallAt = (t: number): string => new Date(performance.timeOrigin + t).toISOString();
  const startedAt = now();
  let epoch = 1;
  let resetAt = startedAt;
  let rcvbufAtReset = readRcvbufErrors(family);
  let ticks = 0;
  let bound = false;
  let stopped = false;
  let echoed = 0;

  const newPair = (t: { node: string; address: string }): Pair => ({
    to: t.node,
    address: t.address,
    seq: 0,
    sent: 0,
    received: 0,
    lost: 0,
    late: 0,
    sendErrors: 0,
    pending: new Map(),
    caughtUp: new Set(),
    lastOkSentAt: resetAt,
    lastLostSentAt: 0,
    firstLostSentAt: null,
    longestGap: 0,
    gaps: new OutageGaps(resetAt, cfg.intervalMs),
    outages: [],
  });
  let pairs = cfg.targets.map(newPair);
  // IPv6 echoes are matched on the address's 32 hex digits, whatever text form the two sides print.
  const keyOf = (address: string): string => (family === "ipv6" ? hex6(address) : address);
  const byAddress = (): Map<string, Pair> => new Map(pairs.map((p) => [keyOf(p.address), p]));
  let index = byAddress();

  // The socket's receive buffer holds what arrives while the agent is held off the CPU. At the kernel's default
  // (212992 bytes) a loaded machine's stall of a few hundred ms filled it during calico-node's roll, and the kernel
  // dropped probes and echoes the network had delivered (RcvbufErrors: 5 of 5 lost, 2026-12-04, load 30-34). The
  // kernel caps the size at net.core.rmem_max; the summary says what it granted.
  const sock = createSocket({
    type: family === "ipv6" ? "udp6" : "udp4",
    recvBufferSize: cfg.recvBufferBytes ?? DEFAULT_RECV_BUFFER,
  });
  const packet = (type: number, ep: number, seq: number): Buffer => {
    const b = Buffer.alloc(PACKET);
    b.writeUInt16BE(MAGIC, 0);
    b.writeUInt8(type, 2);
    b.writeUInt32BE(ep, 4);
    b.writeUInt32BE(seq, 8);
    return b;
  };

  sock.on("message", (msg, rinfo) => {
    if (msg.length !== PACKET || msg.readUInt16BE(0) !== MAGIC) return;
    const type = msg.readUInt8(2);
    if (type === PROBE) {
      msg.writeUInt8(ECHO, 2);
      sock.send(msg, rinfo.port, rinfo.address, () => undefined);
      echoed++;
      return;
    }
    if (type !== ECHO || msg.readUInt32BE(4) !== epoch) return;
    const p = index.get(keyOf(rinfo.address));
    if (!p) return;
    const seq = msg.readUInt32BE(8);
    const sentAt = p.pending.get(seq);
    if (sentAt === undefined) {
      p.late++;
      return;
    }
    p.pending.delete(seq);
    p.caughtUp.delete(seq);
    p.received++;
    p.gaps.received(sentAt);
    if (sentAt > p.lastOkSentAt) {
      p.longestGap = Math.max(p.longestGap, sentAt - p.lastOkSentAt);
      p.lastOkSentAt = sentAt;
    }
  });
  sock.on("error", () => undefined);

  const bind = (): void => {
    sock.once("listening", () => {
      bound = true;
    });
    try {
      sock.bind({ address: cfg.address, port: cfg.port, exclusive: true });
    } catch {
      // not yet: the pod address may not be programmed yet
    }
  };
  // EADDRNOTAVAIL arrives as an 'error' event on bind; retry on a fresh socket is not possible with dgram, so
  // the agent waits for the address to exist before binding.
  const waitForAddress = (): void => {
    if (family === "ipv6" ? address6Present(cfg.address) : addressPresent(cfg.address)) bind();
    else setTimeout(waitForAddress, 200);
  };
  waitForAddress();

  const sendRound = (t: number, catchUp: boolean): void => {
    for (const p of pairs) {
      const seq = p.seq++;
      p.pending.set(seq, t);
      if (catchUp) p.caughtUp.add(seq);
      p.sent++;
      sock.send(packet(PROBE, epoch, seq), cfg.port, p.address, (err) => {
        if (err) p.sendErrors++;
      });
    }
  };

  const expire = (t: number): void => {
    for (const p of pairs) {
      for (const [seq, sentAt] of p.pending) {
        if (t - sentAt < cfg.timeoutMs) break;
        p.pending.delete(seq);
        const caughtUp = p.caughtUp.delete(seq) ? 1 : 0;
        p.lost++;
        const last = p.firstLostSentAt === null ? undefined : p.outages.at(-1);
        if (last && sentAt - p.lastLostSentAt <= OUTAGE_JOIN * cfg.intervalMs) {
          if (last.to === p.lastLostSentAt) {
            last.to = sentAt;
            last.lost++;
            last.caughtUp += caughtUp;
          }
        } else if (p.outages.length < MAX_OUTAGES) {
          p.outages.push({ from: sentAt, to: sentAt, lost: 1, caughtUp });
        }
        p.lastLostSentAt = sentAt;
        p.firstLostSentAt ??= sentAt;
        p.gaps.lost(sentAt, p.pending.values().next().value ?? t);
      }
      p.gaps.prune(p.pending.values().next().value ?? t);
    }
  };

  const tick = (): void => {
    if (!bound) return;
    const t = now();
    const due = Math.floor((t - resetAt) / cfg.intervalMs) + 1;
    if (due - ticks > MAX_CATCH_UP) ticks = due - MAX_CATCH_UP;
    for (let first = true; ticks < due; first = false) {
      sendRound(t, !first);
      ticks++;
    }
    expire(t);
  };

  const rcvbufSinceReset = (): number | null => {
    const n = readRcvbufErrors(family);
    return n === null || rcvbufAtReset === null ? null : n - rcvbufAtReset;
  };

  const summary = (): ProberSummary => {
    const t = now();
    const elapsed = Math.max((t - resetAt) / 1000, 1e-3);
    const pairSummaries: PairSummary[] = pairs.map((p) => {
      // An outage still going on counts up to its latest lost probe.
      const ongoing =
        p.lastLostSentAt > p.lastOkSentAt ? p.lastLostSentAt - p.lastOkSentAt + cfg.intervalMs : 0;
      return {
        to: p.to,
        address: p.address,
        sent: p.sent,
        received: p.received,
        lost: p.lost,
        pending: p.pending.size,
        late: p.late,
        send_errors: p.sendErrors,
        longest_gap_ms: Math.round(Math.max(p.longestGap, ongoing) * 10) / 10,
        longest_outage_ms: Math.round(p.gaps.longestOutage() * 10) / 10,
        first_lost_at: p.firstLostSentAt === null ? null : wallAt(p.firstLostSentAt),
        last_lost_at: p.firstLostSentAt === null ? null : wallAt(p.lastLostSentAt),
        outages: p.outages.map((o) => ({
          from: wallAt(o.from),
          to: wallAt(o.to),
          lost: o.lost,
          caught_up: o.caughtUp,
        })),
        rate_pps: Math.round((p.sent / elapsed) * 10) / 10,
      };
    });
    return {
      node: cfg.node,
      address: cfg.address,
      family,
      pid: process.pid,
      epoch,
      bound,
      stopped,
      started_at: wallAt(startedAt),
      reset_at: wallAt(resetAt),
      written_at: wallAt(t),
      elapsed_s: Math.round(elapsed * 10) / 10,
      interval_ms: cfg.intervalMs,
      timeout_ms: cfg.timeoutMs,
      echoed,
      netns,
      udp_rcvbuf_errors: rcvbufSinceReset(),
      rcvbuf_bytes: bound ? sock.getRecvBufferSize() : null,
      pairs: pairSummaries,
    };
  };

  // The summary is written without blocking the event loop: a synchronous write held up by a busy disk (the other
  // lab slot starting, npm or the Go build) stopped the agent's sends and echoes for a second and more, a gap or
  // probes counted lost that the network had delivered. One write at a time; one asked for meanwhile follows it.
  let writing = false;
  let writeAgain = false;
  const write = (): void => {
    if (writing) {
      writeAgain = true;
      return;
    }
    writing = true;
    const tmp = `${cfg.out}.tmp`;
    writeFile(tmp, JSON.stringify(summary()) + "\n")
      .then(() => rename(tmp, cfg.out))
      .catch(() => undefined)
      .finally(() => {
        writing = false;
        if (writeAgain) {
          writeAgain = false;
          write();
        }
      });
  };
  /** The last summary, written before the process exits. */
  const writeNow = (): void => {
    const tmp = `${cfg.out}.final.tmp`;
    writeFileSync(tmp, JSON.stringify(summary()) + "\n");
    renameSync(tmp, cfg.out);
  };

  const reset = (): void => {
    epoch++;
    resetAt = now();
    rcvbufAtReset = readRcvbufErrors(family);
    ticks = 0;
    pairs = cfg.targets.map(newPair);
    index = byAddress();
    write();
  };

  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    clearInterval(writer);
    writeNow();
    sock.close();
    process.exit(0);
  };

  const timer = setInterval(tick, Math.max(1, Math.floor(cfg.intervalMs / 2)));
  const writer = setInterval(write, 1000);
  setTimeout(stop, cfg.maxSeconds * 1000);
  process.on("SIGUSR1", reset);
  process.on("SIGUSR2", write);
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  write();
}

/** True when `address` is assigned to an interface in this namespace (read from /proc, no process spawned). */
function addressPresent(address: string): boolean {
  // /proc/net/fib_trie lists local addresses as "|-- a.b.c.d" followed by "/32 host LOCAL".
  try {
    const trie = readFileSync("/proc/net/fib_trie", "utf8").split("\n");
    for (let i = 0; i + 1 < trie.length; i++) {
      if (trie[i]?.trim() === `|-- ${address}` && trie[i + 1]?.includes("host LOCAL")) return true;
    }
  } catch {
    return false;
  }
  return false;
}

/**
 * True when the IPv6 `address` is on an interface here and usable: listed in /proc/net/if_inet6 and not tentative
 * (IFA_F_TENTATIVE, 0x40: a bind to an address still in duplicate address detection fails).
 */
function address6Present(address: string): boolean {
  const want = hex6(address);
  try {
    for (const line of readFileSync("/proc/net/if_inet6", "utf8").split("\n")) {
      const f = line.trim().split(/\s+/);
      if (f[0] === want && (parseInt(f[4] ?? "0", 16) & 0x40) === 0) return true;
    }
  } catch {
    return false;
  }
  return false;
}

try {
  main();
} catch (e) {
  process.stderr.write(`prober agent: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
