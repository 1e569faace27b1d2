// Benchmarks over SSH on one lab (the LAB_* slot of the environment), figures for test/bench/FIGURES.md; none
// fails on time:
//   1. the preflight playbook minus a null playbook (the same play, no task) over SSH, with each Ansible in
//      BENCH_VENVS (venv directories; default: the project's .venv); with the venv of Kubespray v2.31.0's Ansible
//      (ansible 11.13.0, added when BENCH_VENVS lacks it), in the same runs taken in turn: Kubespray's own check
//      tasks (roles/network_plugin/calico/tasks/check.yml of the release tree in KUBESPRAY_TREES, after its
//      defaults roles, as its kubernetes/preinstall role includes them) and this project's preflight in the same
//      kind of play (the README's fork), each minus that play without a task (test/support/kubespray.ts), on an
//      inventory that passes both (PINNED_218);
//   2. a migration poll over SSH: calico_encap_migrate towards the encapsulation the cluster already has (one
//      poll, then changed: false) minus the null playbook, with this build's backend and with BENCH_BEFORE's
//      (the cli.js of a build before the reads were batched), with the first venv;
//   3. `calico-encap check` against the live lab (local commands) against `node -e 0` and each of its reads
//      alone (the same commands), from dist/ and from the collection's bundled backend.
// Item 1 runs the preflight twice in the same runs: the checkout's ansible/playbooks/preflight.yml (the backend in
// dist/) and, by FQCN, the collection installed from its tarball (the bundled backend), as a user runs it; with
// BENCH_BEFORE_TARBALL, a third time with the collection of that tarball (a build before), and item 3 runs its bundle.
// BENCH_RUNS runs of each (default 5), alternating, medians.
//   node dist/test/bench/ssh.bench.js

import { execa } from "execa";
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { stringify } from "yaml";
import { calicoctlRead } from "../../src/cluster/read-calicoctl.js";
import { kubectlBase, kubesprayObjectsArgv } from "../../src/cluster/read-kubectl.js";
import { REPO, VENV_BIN, ansibleEnv } from "../support/ansible.js";
import {
  KUBESPRAY_ANSIBLE,
  kubesprayPlaybook,
  kubesprayTree,
  kubesprayVenv,
  type KubesprayRelease,
} from "../support/kubespray.js";
import type { Lab } from "../support/lab.js";
import { labDown, labUp, nodesStatus, waitUntil } from "../support/lab.js";
import { parseRecap } from "../support/playbook.js";
import type { InstalledCollection } from "../support/collection.js";
import { TARBALL, installCollections } from "../support/collection.js";
import { BACKEND_PATH } from "../../tools/collection-content.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const VENVS = (process.env.BENCH_VENVS ?? dirname(VENV_BIN)).split(/\s+/).filter(Boolean);
const CLI = join(REPO, "dist", "src", "cli.js");
const BEFORE = process.env.BENCH_BEFORE;
/** The collection tarball of a build before, measured beside this one's in items 1 and 3 when set. */
const BEFORE_TARBALL = process.env.BENCH_BEFORE_TARBALL;
/** The release whose own check tasks item 1 measures (the Ansible it pins: KUBESPRAY_ANSIBLE). */
const KUBESPRAY: KubesprayRelease = "v2.31.0";
const PINNED_218 = {
  calico_ipip_mode: "Always",
  calico_vxlan_mode: "Never",
  calico_network_backend: "bird",
  calico_pool_blocksize: 24,
};

/** The check's flags for the cluster as Kubespray 2.18 left it (it passes). */
const PINNED_FLAGS = [
  "--ipip-mode",
  "Always",
  "--vxlan-mode",
  "Never",
  "--network-backend",
  "bird",
  "--pool-blocksize",
  "24",
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

/** A command to time; extendEnv false: env is the whole environment (a Kubespray run's, kubesprayPlaybook). */
interface Run {
  argv: string[];
  env: Record<string, string>;
  extendEnv?: boolean;
  stdin?: string;
}

async function timed(
  argv: string[],
  env: Record<string, string>,
  extendEnv = true,
  stdin = "",
): Promise<number> {
  const started = process.hrtime.bigint();
  const r = await execa(argv[0] ?? "", argv.slice(1), {
    env,
    extendEnv,
    reject: false,
    all: true,
    cwd: REPO,
    input: stdin,
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${r.exitCode}: ${r.all ?? ""}`);
  return ms;
}

/** Median ms of each argv, run RUNS times in turn. */
async function compare(runs: Record<string, Run>): Promise<Record<string, number>> {
  const times: Record<string, number[]> = {};
  for (let i = 0; i < RUNS; i++)
    for (const [name, r] of Object.entries(runs))
      (times[name] ??= []).push(await timed(r.argv, r.env, r.extendEnv, r.stdin));
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

/**
 * Kubespray's own check tasks, this project's preflight in the same kind of play, and that play without a task,
 * each a Kubespray run (test/support/kubespray.ts) with the inventory pinned to the cluster; null when
 * KUBESPRAY_TREES lacks the release (the reason printed).
 */
async function kubesprayRuns(lab: Lab): Promise<Record<string, Run> | null> {
  try {
    kubesprayTree(KUBESPRAY);
  } catch (e) {
    console.log(`  Kubespray's check not measured: ${(e as Error).message}`);
    return null;
  }
  const run = async (plays: ("defaults" | "check" | "preflight")[]): Promise<Run> => {
    const p = await kubesprayPlaybook(lab, { release: KUBESPRAY, vars: PINNED_218, plays });
    return { argv: p.argv, env: p.env, extendEnv: false };
  };
  return {
    ksNull: await run(["defaults"]),
    ksCheck: await run(["check"]),
    ksPreflight: await run(["preflight"]),
  };
}

/**
 * A collection installed from a tarball, once per ansible-galaxy (one venv's bin) and tarball: the per-venv runs and
 * the bundle's share it; BENCH_BEFORE_TARBALL's is installed beside this build's.
 */
const installs = new Map<string, Promise<InstalledCollection>>();
function installedFrom(bin: string, tarball: string): Promise<InstalledCollection> {
  const key = `${bin}\0${tarball}`;
  const known = installs.get(key);
  if (known) return known;
  const started = installCollections(bin, [tarball]);
  installs.set(key, started);
  return started;
}
const installedWith = (bin: string): Promise<InstalledCollection> => installedFrom(bin, TARBALL);
/** The bundled backend of a collection installed from a tarball. */
const bundleFrom = async (bin: string, tarball: string): Promise<string> =>
  join((await installedFrom(bin, tarball)).installed, BACKEND_PATH);

const ms = (x: number | undefined): string => `${(x ?? NaN).toFixed(0)} ms`;

function nullPlaybook(): string {
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-bench-"));
  const path = join(dir, "null.yml");
  writeFileSync(
    path,
    stringify([
      {
        name: "The same play without a task",
        hosts: "kube_control_plane",
        gather_facts: false,
        tasks: [],
      },
    ]),
  );
  return path;
}

async function main(): Promise<void> {
  const lab: Lab = await labUp("kubespray-2.18");
  try {
    await waitUntil("calico-node ready", () => nodesStatus(lab).summary.podsReady === 3);
    const inventory = join(lab.state, "inventory.ini");
    const nul = nullPlaybook();
    const play = (bin: string, name: string, vars: Record<string, unknown>) => [
      join(bin, "ansible-playbook"),
      "-i",
      inventory,
      name,
      "-e",
      JSON.stringify(vars),
    ];
    console.log(`${RUNS} runs each, medians; lab ${lab.state}`);
    console.log("\n1. preflight.yml minus the null playbook over SSH (bridge)");
    const ksVenv = await kubesprayVenv(KUBESPRAY);
    const same = (a: string, b: string): boolean => realpathSync(a) === realpathSync(b);
    const venvs = VENVS.some((v) => same(v, ksVenv)) ? VENVS : [...VENVS, ksVenv];
    for (const venv of venvs) {
      const bin = join(venv, "bin");
      const env = ansibleEnv({}, bin);
      const ks = same(venv, ksVenv) ? await kubesprayRuns(lab) : null;
      // Once each first: the SSH connection the runs in turn share (Ansible's ControlPersist) warmed as every later
      // run finds it, and the recap of Kubespray's check and of the preflight (both pass on this inventory).
      for (const name of ["ksCheck", "ksPreflight"] as const) {
        const r = ks?.[name];
        if (!r) continue;
        const out = await execa(r.argv[0] ?? "", r.argv.slice(1), {
          env: r.env,
          extendEnv: false,
          reject: false,
          all: true,
        });
        if (out.exitCode !== 0) throw new Error(`${name} exited ${out.exitCode}: ${out.all ?? ""}`);
        console.log(`  ${name} once: ${JSON.stringify(parseRecap(out.all ?? "")["node-1"])}`);
      }
      const installed = await installedWith(bin);
      const before = BEFORE_TARBALL ? await installedFrom(bin, BEFORE_TARBALL) : null;
      const m = await compare({
        ...(before
          ? {
              collectionBefore: {
                argv: play(bin, "calico_encap.kubespray.preflight", PINNED_218),
                env: before.env,
                extendEnv: false,
              },
            }
          : {}),
        null: { argv: play(bin, nul, {}), env },
        preflight: {
          argv: play(bin, join(REPO, "ansible", "playbooks", "preflight.yml"), PINNED_218),
          env,
        },
        collection: {
          argv: play(bin, "calico_encap.kubespray.preflight", PINNED_218),
          env: installed.env,
          extendEnv: false,
        },
        ...ks,
      });
      const added = (m.preflight ?? 0) - (m.null ?? 0);
      const addedCollection = (m.collection ?? 0) - (m.null ?? 0);
      console.log(
        `  ${basename(venv)}: null ${ms(m.null)}, preflight.yml ${ms(m.preflight)}, added ${ms(added)}; ` +
          `calico_encap.kubespray.preflight (the installed collection) ${ms(m.collection)}, added ${ms(addedCollection)}`,
      );
      if (before)
        console.log(
          `  the collection of BENCH_BEFORE_TARBALL, in the same runs: ${ms(m.collectionBefore)}, added ${ms((m.collectionBefore ?? 0) - (m.null ?? 0))}`,
        );
      if (!ks) continue;
      const ksAdded = (m.ksCheck ?? 0) - (m.ksNull ?? 0);
      const inPlay = (m.ksPreflight ?? 0) - (m.ksNull ?? 0);
      console.log(
        `  in the same runs, Kubespray ${KUBESPRAY}'s plays (its defaults roles; ansible ${KUBESPRAY_ANSIBLE[KUBESPRAY]}): ` +
          `without a task ${ms(m.ksNull)}, its own check tasks ${ms(m.ksCheck)} (added ${ms(ksAdded)}), ` +
          `this project's preflight ${ms(m.ksPreflight)} (added ${ms(inPlay)})`,
      );
      console.log(
        `  preflight added / Kubespray's check added: preflight.yml ${(added / ksAdded).toFixed(2)}, ` +
          `the collection's ${(addedCollection / ksAdded).toFixed(2)}, ` +
          `in Kubespray's play ${(inPlay / ksAdded).toFixed(2)} (goal: at most 0.20)`,
      );
    }
    const venv = VENVS[0] ?? dirname(VENV_BIN);
    const bin = join(venv, "bin");
    console.log(
      `\n2. one migration poll over SSH (migrate.yml to the current encapsulation), ${basename(venv)}`,
    );
    const backends: Record<string, string> = { after: CLI, ...(BEFORE ? { before: BEFORE } : {}) };
    const runs: Record<string, { argv: string[]; env: Record<string, string> }> = {
      null: { argv: play(bin, nul, {}), env: ansibleEnv({}, bin) },
    };
    for (const [name, cli] of Object.entries(backends))
      runs[name] = {
        argv: play(bin, join(REPO, "ansible", "playbooks", "migrate.yml"), PINNED_218),
        env: ansibleEnv({ CALICO_ENCAP_BACKEND: cli }, bin),
      };
    const m = await compare(runs);
    for (const name of Object.keys(backends))
      console.log(
        `  ${name}: ${m[name]?.toFixed(0)} ms, minus null ${((m[name] ?? 0) - (m.null ?? 0)).toFixed(0)} ms`,
      );
    console.log(`  null: ${m.null?.toFixed(0)} ms`);

    console.log("\n3. calico-encap check on the live lab (local commands) against node -e 0");
    const bundle = await bundleFrom(bin, TARBALL);
    const flags = [
      "--calicoctl",
      lab.calicoctlSh,
      "--kubectl",
      lab.kubectl,
      "--kubeconfig",
      lab.kubeconfig,
    ];
    const checks: Record<string, Run> = {
      node: { argv: ["node", "-e", "0"], env: {} },
      check: { argv: ["node", CLI, "check", ...flags, ...PINNED_FLAGS], env: {} },
      checkBundle: { argv: ["node", bundle, "check", ...flags, ...PINNED_FLAGS], env: {} },
    };
    if (BEFORE_TARBALL) {
      const old = await bundleFrom(bin, BEFORE_TARBALL);
      checks.checkBundleBefore = { argv: ["node", old, ...checks.check!.argv.slice(2)], env: {} };
    }
    if (BEFORE)
      checks.checkBefore = { argv: ["node", BEFORE, ...checks.check!.argv.slice(2)], env: {} };
    // Each read the check makes (its argv from src/cluster), alone.
    const reads: Record<string, Run> = {};
    const calico = calicoctlRead(lab.calicoctlSh, 30);
    reads["read: calicoctl IPPool, FelixConfiguration and ClusterInformation"] = {
      argv: [...calico.argv],
      env: {},
      ...(calico.stdin === undefined ? {} : { stdin: calico.stdin }),
    };
    reads["read: kubectl calico-config and calico-node"] = {
      argv: kubesprayObjectsArgv(kubectlBase(lab.kubectl, lab.kubeconfig)),
      env: {},
    };
    const c = await compare({ ...checks, ...reads });
    for (const [k, v] of Object.entries(c))
      console.log(`  ${k}: ${v.toFixed(0)} ms (${(v / (c.node ?? 1)).toFixed(2)}x node)`);
    const slowest = Math.max(...Object.keys(reads).map((k) => c[k] ?? NaN));
    const goal = 2 * (c.node ?? NaN) + slowest;
    console.log(
      `  goal: at most twice node's start plus the slowest read = 2 x ${ms(c.node)} + ${ms(slowest)} = ${ms(goal)}; ` +
        `the collection's bundle (what users run) ${ms(c.checkBundle)}: ${(c.checkBundle ?? Infinity) <= goal ? "met" : "not met"}; ` +
        `dist/ ${ms(c.check)}: ${(c.check ?? Infinity) <= goal ? "met" : "not met"}`,
    );

    console.log(`\n5. where the preflight's added time goes, ${basename(venv)}`);
    const one = join(dirname(nul), "one-task.yml");
    writeFileSync(
      one,
      stringify([
        {
          name: "The same play with one task on node-1",
          hosts: "kube_control_plane",
          gather_facts: false,
          tasks: [{ name: "true", "ansible.builtin.command": "true", changed_when: false }],
        },
      ]),
    );
    const persist = {
      ANSIBLE_SSH_ARGS: `-o ControlMaster=auto -o ControlPersist=30m -o ControlPath=${dirname(nul)}/cm-%C`,
    };
    // Ansible's own default (ssh_args "-C -o ControlMaster=auto -o ControlPersist=60s") keeps a connection for 60 s,
    // so runs in turn share one: a new connection per run needs ControlMaster off.
    for (const [label, extra] of [
      [
        "a new SSH connection per run",
        { ANSIBLE_SSH_ARGS: "-o ControlMaster=no -o ControlPath=none" },
      ],
      ["the connection kept open (ControlPersist 30m)", persist],
    ] as const) {
      const env = ansibleEnv(extra, bin);
      if (label.startsWith("the connection")) await timed(play(bin, one, {}), env);
      const m = await compare({
        null: { argv: play(bin, nul, {}), env },
        oneTask: { argv: play(bin, one, {}), env },
        preflight: {
          argv: play(bin, join(REPO, "ansible", "playbooks", "preflight.yml"), PINNED_218),
          env,
        },
      });
      const connectAndTask = (m.oneTask ?? 0) - (m.null ?? 0);
      const backend = (m.preflight ?? 0) - (m.oneTask ?? 0);
      console.log(
        `  ${label}: null ${m.null?.toFixed(0)} ms, one task ${m.oneTask?.toFixed(0)} ms, preflight ${m.preflight?.toFixed(0)} ms; ` +
          `SSH and one task ${connectAndTask.toFixed(0)} ms, the backend's part ${backend.toFixed(0)} ms, added in all ${((m.preflight ?? 0) - (m.null ?? 0)).toFixed(0)} ms`,
      );
    }
    const start = await compare({
      node: { argv: ["node", "-e", "0"], env: {} },
      help: { argv: ["node", CLI, "check", "--help"], env: {} },
      helpBundle: { argv: ["node", bundle, "check", "--help"], env: {} },
      ...(BEFORE_TARBALL
        ? {
            helpBundleBefore: {
              argv: ["node", await bundleFrom(bin, BEFORE_TARBALL), "check", "--help"],
              env: {},
            },
          }
        : {}),
    });
    console.log(
      `  the backend's start: node cli.js check --help ${start.help?.toFixed(0)} ms against node -e 0 ${start.node?.toFixed(0)} ms (${((start.help ?? 0) - (start.node ?? 0)).toFixed(0)} ms more); the collection's bundle ${start.helpBundle?.toFixed(0)} ms (${((start.helpBundle ?? 0) - (start.node ?? 0)).toFixed(0)} ms more)` +
        (BEFORE_TARBALL
          ? `; BENCH_BEFORE_TARBALL's bundle ${start.helpBundleBefore?.toFixed(0)} ms`
          : ""),
    );

    console.log(
      `\n4. the polls of a migration IPIP/bird -> VXLAN/vxlan over SSH (-vvv), ${basename(venv)}`,
    );
    const r = await execa(
      join(bin, "ansible-playbook"),
      [
        "-vvv",
        ...play(bin, join(REPO, "ansible", "playbooks", "migrate.yml"), {
          calico_ipip_mode: "Never",
          calico_vxlan_mode: "Always",
          calico_network_backend: "vxlan",
          calico_encap_wait_sleep: 1,
        }).slice(1),
      ],
      { env: ansibleEnv({}, bin), reject: false, all: true, cwd: REPO },
    );
    if (r.exitCode !== 0) throw new Error(`migrate.yml exited ${r.exitCode}: ${r.all ?? ""}`);
    const figures = (re: RegExp): number[] =>
      [...(r.all ?? "").matchAll(re)].map((m) => Number(m[1]));
    const polls = figures(/poll: the Lease renewed and the cluster read in (\d+) ms/g);
    const renewals = figures(/renewed the Lease before the write in (\d+) ms/g);
    console.log(
      `  ${polls.length} polls: median ${median(polls)} ms (min ${Math.min(...polls)}, max ${Math.max(...polls)}); ` +
        `${renewals.length} renewals before a write: median ${median(renewals)} ms`,
    );
  } finally {
    await labDown();
  }
}

await main();
