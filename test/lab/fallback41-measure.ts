// Issue 41's feasibility measurement, on a running lab (LAB_STATE; e.g. LAB_CALICO=v3.30.1, profile
// kubespray-2.18): IPIP Always/bird <-> VXLAN Always/bird with tunnel_pool_cidr (kept on the way back), on BIRD's
// path, alternately without and with the fallback table and rules of test/lab/fallback41.sh, with the prober
// running throughout. The fallback is installed on every node while the module is stopped (SIGSTOP) right before
// the pool switch's write, and removed once the run has converged (its last wait done) and SETTLE_MS more.
//
//   node dist/test/lab/fallback41-measure.js [rounds=2]
//
// Prints one JSON line per migration: direction, with or without, the probes lost per pair, the longest gap per
// pair, the loss by step, and the fallback's install output. Not part of any test tier.

import { execa } from "execa";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { REPO } from "../support/ansible.js";
import {
  lossByStep,
  migrateArgs,
  readLabEnv,
  readProber,
  resetProber,
  startProber,
  type Lab,
  type ProberFigures,
  type StepTiming,
} from "../support/lab.js";

const SCRIPT = join(REPO, "test", "lab", "fallback41.sh");
const TUNNEL_CIDR = "172.30.0.0/24";
const SETTLE_MS = 5000;
/** The title holds an apostrophe ("every node's tunnel address"). */
const POOL_SWITCH_WRITING = /step \d+\/\d+ 'Switch IPPool default-pool .*': writing$/;
/** Out of VXLAN, the fallback holds the target's routes (ipip, the lab's stand-in) or the source's (kept-vxlan). */
const OUT_MODE = process.env.FB41_OUT_MODE === "kept-vxlan" ? "kept-vxlan" : "ipip";
const TO_VXLAN = { ipip_mode: "Never", vxlan_mode: "Always", network_backend: "bird" };
const TO_IPIP = { ipip_mode: "Always", vxlan_mode: "Never", network_backend: "bird" };

function namespaces(lab: Lab): string[] {
  const prefix = process.env.LAB_NETNS_PREFIX ?? "calab-";
  const n = Number(lab.env.LAB_NODES ?? "3");
  return Array.from({ length: n }, (_, i) => `${prefix}node-${i + 1}`);
}

async function fallback(...args: string[]): Promise<string> {
  const r = await execa("bash", [SCRIPT, ...args], { all: true });
  return r.all ?? "";
}

interface Migration {
  result: { failed?: boolean; msg?: string; steps?: StepTiming[] };
  installed: string;
  installMs: number;
}

/** Runs calico_encap_migrate as Ansible would; with `mode`, installs the fallback at the pool switch's write. */
async function migrate(
  lab: Lab,
  target: Record<string, string>,
  mode: "vxlan" | "ipip" | "kept-vxlan" | null,
): Promise<Migration> {
  const file = join(mkdtempSync(join(tmpdir(), "calico-encap-fb41-")), "args.json");
  writeFileSync(
    file,
    JSON.stringify({
      ...migrateArgs(lab),
      ...target,
      tunnel_pool_cidr: TUNNEL_CIDR,
      _ansible_verbosity: 1,
    }),
  );
  const child = execa(
    "node",
    [join(REPO, "dist", "src", "cli.js"), "module", "calico_encap_migrate", file],
    { reject: false },
  );
  let installing: Promise<void> | null = null;
  let installed = "";
  let installMs = 0;
  createInterface({ input: child.stderr }).on("line", (line) => {
    if (process.env.FB41_VERBOSE) console.error(line);
    if (mode === null || installing !== null || !POOL_SWITCH_WRITING.test(line)) return;
    child.kill("SIGSTOP");
    const t0 = Date.now();
    installing = (async () => {
      try {
        installed = await fallback("install", mode, ...namespaces(lab));
        installed += "\n" + (await fallback("show", ...namespaces(lab)));
      } finally {
        installMs = Date.now() - t0;
        child.kill("SIGCONT");
      }
    })();
  });
  const r = await child;
  if (installing !== null) await (installing as Promise<void>);
  return { result: JSON.parse(r.stdout) as Migration["result"], installed, installMs };
}

/**
 * `ip -ts monitor route` in every node's namespace while `run` runs; returns, per node and pool block, each time
 * the main table had no route for the block (from a delete to the next add or replace), in ms, with the protocol
 * of the route deleted and of the one added: the windows the fallback table is for.
 */
async function mainTableGaps<T>(
  lab: Lab,
  run: () => Promise<T>,
): Promise<{ out: T; gaps: string[] }> {
  const monitors = namespaces(lab).map((ns) => ({
    ns,
    child: execa("ip", ["-n", ns, "-ts", "monitor", "route"], { reject: false, buffer: true }),
  }));
  await new Promise((r) => setTimeout(r, 300));
  const out = await run();
  await new Promise((r) => setTimeout(r, 500));
  const gaps: string[] = [];
  for (const { ns, child } of monitors) {
    child.kill("SIGTERM");
    const text = String((await child).stdout ?? "");
    const deleted = new Map<string, { at: number; line: string }>();
    for (const line of text.split("\n")) {
      const m = /^\[([^\]]+)\] (Deleted )?(\S+) (.*)$/.exec(line);
      if (!m?.[1] || !m[3] || !m[3].startsWith("10.233.") || / table /.test(m[4] ?? "")) continue;
      const at = Date.parse(`${m[1].slice(0, 23)}Z`);
      const proto = /proto (\S+)/.exec(m[4] ?? "")?.[1] ?? "?";
      const dev = /dev (\S+)/.exec(m[4] ?? "")?.[1] ?? "-";
      if (m[2]) deleted.set(m[3], { at, line: `${proto}/${dev}` });
      else {
        const d = deleted.get(m[3]);
        if (d)
          gaps.push(
            `${ns.replace(/^.*node-/, "node-")} ${m[3]} ${at - d.at} ms (${d.line} deleted ${new Date(d.at).toISOString().slice(11, 23)}, ${proto}/${dev} added)`,
          );
        deleted.delete(m[3]);
      }
    }
    for (const [dst, d] of deleted)
      gaps.push(
        `${ns.replace(/^.*node-/, "node-")} ${dst} still absent (${d.line} deleted ${new Date(d.at).toISOString().slice(11, 23)})`,
      );
  }
  return { out, gaps };
}

/**
 * When each node's host could not resolve its own pod's address (the neighbour entry on the pod's cali* interface
 * FAILED or INCOMPLETE until REACHABLE again), from the lab's `ip monitor` log (test/lab/net.sh). Every pair whose
 * pod end is on that node loses its probes then, whatever the routes: the loss the fallback is not about.
 */
function podArpFailures(lab: Lab): Map<string, [number, number][]> {
  const out = new Map<string, [number, number][]>();
  for (const ns of namespaces(lab)) {
    const node = ns.replace(/^.*node-/, "node-");
    const spans: [number, number][] = [];
    let start: number | null = null;
    const log = join(lab.state, "log", `monitor-${node}.log`);
    for (const line of readFileSync(log, "utf8").split("\n")) {
      const m = /^\[([^\]]+)\] (?:Deleted )?\S+ dev cali\S+ (.*)$/.exec(line);
      if (!m?.[1] || m[2] === undefined) continue;
      const at = Date.parse(`${m[1].slice(0, 23)}Z`);
      if (/FAILED|INCOMPLETE/.test(m[2]) && start === null) start = at;
      else if (m[2].includes("REACHABLE") && start !== null) {
        spans.push([start, at]);
        start = null;
      }
    }
    if (start !== null) spans.push([start, Number.MAX_SAFE_INTEGER]);
    out.set(node, spans);
  }
  return out;
}

/** Splits the prober's outages: those during a pod ARP failure at either pod end, and the rest, per pair. */
function classify(
  lab: Lab,
  p: ProberFigures,
  poolSwitch: StepTiming | undefined,
): {
  podArp: number;
  other: number;
  otherInSwitch: number;
  otherByPair: Record<string, number>;
  otherLongestMs: number;
} {
  const arp = podArpFailures(lab);
  const sw0 = poolSwitch?.written_at ? Date.parse(poolSwitch.written_at) : 0;
  const sw1 = sw0 + (poolSwitch?.seconds ?? 0) * 1000;
  let podArp = 0;
  let other = 0;
  let otherInSwitch = 0;
  let otherLongestMs = 0;
  const otherByPair: Record<string, number> = {};
  for (const pair of p.pairs) {
    const ends = [pair.to, ...(pair.from.endsWith(".host") ? [] : [pair.from])];
    for (const o of pair.outages) {
      const from = Date.parse(o.from);
      const to = Date.parse(o.to);
      const duringArp = ends.some((n) =>
        (arp.get(n) ?? []).some(([s, e]) => s - 100 <= to && from <= e + 100),
      );
      if (duringArp) podArp += o.lost;
      else {
        other += o.lost;
        otherByPair[`${pair.from}->${pair.to}`] =
          (otherByPair[`${pair.from}->${pair.to}`] ?? 0) + o.lost;
        otherLongestMs = Math.max(otherLongestMs, to - from);
        if (from >= sw0 && from <= sw1) otherInSwitch += o.lost;
      }
    }
  }
  return { podArp, other, otherInSwitch, otherByPair, otherLongestMs };
}

async function measured(
  lab: Lab,
  direction: "into VXLAN" | "out of VXLAN",
  withFallback: boolean,
): Promise<void> {
  await resetProber(lab);
  const into = direction === "into VXLAN";
  const load0 = readFileSync("/proc/loadavg", "utf8").split(" ")[0];
  const { out: m, gaps } = await mainTableGaps(lab, () =>
    migrate(lab, into ? TO_VXLAN : TO_IPIP, withFallback ? (into ? "vxlan" : OUT_MODE) : null),
  );
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const removedAt = new Date().toISOString();
  const removed = withFallback ? await fallback("remove", ...namespaces(lab)) : "";
  const p = await readProber(lab);
  const load1 = readFileSync("/proc/loadavg", "utf8").split(" ")[0];
  const steps = m.result.steps ?? [];
  const split = classify(
    lab,
    p,
    steps.find((x) => x.title.startsWith("Switch IPPool default-pool ")),
  );
  console.log(
    JSON.stringify({
      direction,
      fallback: withFallback ? (into ? "vxlan" : OUT_MODE) : false,
      failed: m.result.failed ?? false,
      msg: m.result.failed ? m.result.msg : undefined,
      sent: p.sent,
      lost: p.lost,
      longest_gap_ms: p.longest_gap_ms,
      rcvbuf_errors: p.rcvbuf_errors,
      lost_during_pod_arp_failures: split.podArp,
      lost_otherwise: split.other,
      lost_otherwise_in_pool_switch: split.otherInSwitch,
      lost_otherwise_by_pair: split.otherByPair,
      lost_otherwise_longest_outage_ms: split.otherLongestMs,
      load: `${load0} -> ${load1}`,
      main_table_gaps: gaps,
      removed_at: removedAt,
      pairs: p.pairs.map((x) => `${x.from}->${x.to} ${x.lost}/${x.sent} gap ${x.longest_gap_ms}`),
      by_step: lossByStep(p, steps),
      outages: p.pairs.flatMap((x) =>
        x.outages.map((o) => `${x.from}->${x.to} ${o.lost} from ${o.from} to ${o.to}`),
      ),
      steps: steps.map((s) => `${s.title.slice(0, 60)} @${s.written_at} ${s.seconds}s`),
      install_ms: m.installMs,
      installed: m.installed.split("\n"),
      removed: removed.split("\n"),
    }),
  );
}

async function main(): Promise<void> {
  const lab = readLabEnv();
  const rounds = Number(process.argv[2] ?? "2");
  await startProber(lab, 3600);
  // Start from IP-in-IP whatever an earlier run left (a killed run resumes); not measured.
  const start = await migrate(lab, TO_IPIP, null);
  if (start.result.failed) throw new Error(`the start into IPIP failed: ${start.result.msg}`);
  // Rounds alternate which goes first, without or with, so that neither always follows the other.
  for (let i = 0; i < rounds; i++)
    for (const withFallback of i % 2 === 0 ? [false, true] : [true, false]) {
      await measured(lab, "into VXLAN", withFallback);
      await measured(lab, "out of VXLAN", withFallback);
    }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
