// Issue 41's fallback on BIRD's path, through the product, on the lab's real control plane and calico-node (Felix,
// allocate-tunnel-addrs, confd, BIRD; kernel VXLAN). calico_encap_migrate with stop_before: pool_switch stops before
// the pool's switch with every VTEP from the tunnel pool, and its fallback_routes are each remote block (the main
// table's BIRD or Felix route for it) via the peer's VTEP (the address on the peer's vxlan.calico); the role's
// fallback_install puts exactly those into table 1041 with the two rules on every node; ansible/playbooks/migrate.yml
// with calico_encap_bird_path_fallback: true removes a killed run's leftovers, finishes, and leaves nothing on any
// node (no rule at 1040 or 1041, no route of protocol 141 in any table).
//
// What it saves, in the same run, the prober running throughout (12 pairs, pod to pod and host to remote pod): each
// migrate.yml run with the fallback is asserted to lose no probe; the same tour without it
// (calico_encap_bird_path_fallback: false) is the yardstick, printed, each way once without, then alternating twice
// more. Then migrate.yml with the fallback is SIGKILLed (every process under ansible-playbook) at the first write of
// each run's migration, as soon as the write is seen in the cluster, and run again until a run completes: each run
// removes what the killed one left, and the last leaves nothing on any node. The quick tier (make test) runs each way
// with the fallback and the first case's stopped play, whose leftovers the next run removes; the yardstick, the kill
// chain and the rollback are the full tier's (issue 50: make test within 45 minutes cold). The full tier,
// before v3.31, also stops the API server past wait_timeout right after the pool switch: the run rolls back, and the
// play's removal leaves nothing on any node.
//
// Which way BIRD's path goes depends on the lab's Calico: before v3.31 (LAB_CALICO=v3.30.1, or the seed era's
// v3.22.0) into VXLAN with tunnel_pool_cidr and back out with the tunnel pool kept; on v3.31 the way in takes Felix's
// path, where stop_before is refused before any write and nothing is measured, and the way out (no
// ipip_tunnel_pool_cidr) is BIRD's. Stand-in: nodes 2 and 3 are reached by Ansible's local connection with a Python
// interpreter that runs in the node's network namespace (the lab has sshd on node-1 only); node-1 over its real SSH;
// become with su (no sudo here).
import { expect } from "chai";
import { execa } from "execa";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { hasClusterRoutes } from "../../src/calico/shared/cluster-routes.js";
import { ansibleEnv, REPO, runTask, VENV_BIN, type TaskResult } from "../support/ansible.js";
import {
  calicoctl,
  labDown,
  labUp,
  lostByPair,
  migrateArgs,
  nodesStatus,
  proberDrops,
  readProber,
  realCalicoNode,
  resetProber,
  resourceVersions,
  startProber,
  waitUntil,
  type Lab,
  type ProberFigures,
} from "../support/lab.js";
import { TIER } from "../support/tier.js";
import { runPlaybook, runPlaybookKilled, type PlaybookRun } from "../support/playbook.js";

/**
 * The lab's nodes: 3 in make test; FALLBACK_NODES=5 (by hand, issue 52 item 3) runs the same tour on more real nodes,
 * the prober on every pair.
 */
const NODE_COUNT = Number(process.env.FALLBACK_NODES ?? "3");
const NODES = Array.from({ length: NODE_COUNT }, (_, i) => `node-${i + 1}`);
const PREFIX = process.env.LAB_NETNS_PREFIX ?? "calab-";
const TUNNEL_CIDR = "172.30.0.0/24";
const TABLE = "1041";
const PROTOCOL = "141";
const INTO_VXLAN = { ipip_mode: "Never", vxlan_mode: "Always", network_backend: "vxlan" };
const OUT_OF_VXLAN = { ipip_mode: "Always", vxlan_mode: "Never", network_backend: "bird" };
/** The same targets as the playbook's Kubespray variables. */
const asInventory = (t: typeof INTO_VXLAN) => ({
  calico_ipip_mode: t.ipip_mode,
  calico_vxlan_mode: t.vxlan_mode,
  calico_network_backend: t.network_backend,
  calico_encap_tunnel_pool_cidr: TUNNEL_CIDR,
  calico_encap_wait_sleep: 1,
  calico_encap_wait_timeout: 180,
});

interface Route {
  dst: string;
  gateway?: string;
  dev?: string;
  protocol?: string;
  table?: string;
  flags?: string[];
}
interface Rule {
  priority: number;
  table: string;
  dst?: string;
  dstlen?: number;
  suppress_prefixlen?: number;
}
interface Named {
  dst: string;
  via: string;
  dev: string;
  onlink: boolean;
  peer: string;
}

async function ipJson<T>(node: string, ...args: string[]): Promise<T[]> {
  const r = await execa("ip", ["-n", `${PREFIX}${node}`, "-4", "-j", ...args]);
  return JSON.parse(r.stdout || "[]") as T[];
}

/** What a node's kernel has of the fallback: rules at 1040 and 1041, and routes in 1041 or of protocol 141. */
async function fallbackOn(node: string): Promise<{ rules: Rule[]; routes: Route[] }> {
  const rules = (await ipJson<Rule>(node, "rule", "show")).filter((r) =>
    [1040, 1041].includes(r.priority),
  );
  const routes = (await ipJson<Route>(node, "route", "show", "table", "all")).filter(
    (r) => r.table === TABLE || r.protocol === PROTOCOL,
  );
  return { rules, routes };
}

async function nothingLeft(when: string): Promise<void> {
  for (const node of NODES)
    expect(
      await fallbackOn(node),
      `${when}: nothing of the fallback left on ${node}`,
    ).to.deep.equal({
      rules: [],
      routes: [],
    });
}

/** The address on a node's vxlan.calico: its VTEP, as the kernel has it. */
async function vtepOf(node: string): Promise<string> {
  const [link] = await ipJson<{ addr_info: { local: string }[] }>(
    node,
    "addr",
    "show",
    "dev",
    "vxlan.calico",
  );
  return link?.addr_info[0]?.local ?? "";
}

/** A node's own block: its BIRD blackhole route (BIRD's path keeps one per block it holds). */
async function blocksOf(node: string): Promise<string[]> {
  return (await ipJson<Route & { type?: string }>(node, "route", "show", "proto", "bird"))
    .filter((r) => r.type === "blackhole")
    .map((r) => r.dst);
}

/** The lab's inventory with the nodes but node-1 in kube_node, reached in their network namespaces; become with su. */
function inventoryOf(lab: Lab): string {
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-fallback-"));
  const hosts = NODES.slice(1).map((node) => {
    const python = join(dir, `python-${node}`);
    writeFileSync(
      python,
      `#!/bin/sh\n# ${node}'s stand-in for SSH: Python in its network namespace.\nexec ip netns exec ${PREFIX}${node} /usr/bin/python3 "$@"\n`,
    );
    chmodSync(python, 0o755);
    return `${node} ansible_connection=local ansible_python_interpreter=${python}`;
  });
  const lines = readFileSync(join(lab.state, "inventory.ini"), "utf8").replace(
    "[k8s_cluster:children]\nkube_control_plane\n",
    `[kube_node]\n${hosts.join("\n")}\n\n[k8s_cluster:children]\nkube_control_plane\nkube_node\n`,
  );
  expect(lines, "the lab's inventory has the k8s_cluster group this test extends").to.include(
    "kube_node",
  );
  writeFileSync(join(dir, "hosts.ini"), `${lines}ansible_become_method=su\n`);
  return join(dir, "hosts.ini");
}

/** Runs the role's fallback_install on every host of k8s_cluster with the routes given. */
async function install(
  inventory: string,
  routes: Named[],
  nodes: string[],
  cidrs: string[],
): Promise<{ exitCode: number; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-fallback-play-"));
  const play = join(dir, "install.yml");
  writeFileSync(
    play,
    stringify([
      {
        name: "Install the fallback",
        hosts: "k8s_cluster",
        gather_facts: false,
        become: true,
        tasks: [
          {
            name: "Install the fallback",
            "ansible.builtin.import_role": { name: "calico_encap", tasks_from: "fallback_install" },
            vars: {
              calico_encap_fallback_routes: routes,
              calico_encap_fallback_nodes: nodes,
              calico_encap_fallback_cidrs: cidrs,
            },
          },
        ],
      },
    ]),
  );
  const r = await execa(join(VENV_BIN, "ansible-playbook"), ["-i", inventory, play], {
    reject: false,
    cwd: REPO,
    env: ansibleEnv(),
    all: true,
  });
  return { exitCode: r.exitCode ?? -1, output: r.all ?? "" };
}

async function poolModes(lab: Lab): Promise<{ ipipMode?: string; vxlanMode?: string }> {
  return (
    JSON.parse(await calicoctl(lab, "get", "ippool", "default-pool", "-o", "json")) as {
      spec: { ipipMode?: string; vxlanMode?: string };
    }
  ).spec;
}

/** A target's way, as the figures print it. */
const wayOf = (target: typeof INTO_VXLAN): string =>
  target === INTO_VXLAN ? "into VXLAN" : "out of VXLAN";

/**
 * How a migrate.yml run takes the fallback: its default (calico_encap_bird_path_fallback unset: where the switch takes
 * BIRD's path and the fallback can cover it), asked for (true), or opted out of (false).
 */
type Fallback = boolean | "default";

/** One migrate.yml run with the prober's figures of it, from a reset just before to its end. */
async function measuredPlaybook(
  lab: Lab,
  inventory: string,
  target: typeof INTO_VXLAN,
  fallback: Fallback,
): Promise<{ run: PlaybookRun; p: ProberFigures }> {
  await resetProber(lab);
  const run = await runPlaybook("migrate", inventory, {
    extraVars: {
      ...(fallback === "default" ? {} : { calico_encap_bird_path_fallback: fallback }),
      ...asInventory(target),
    },
  });
  const p = await readProber(lab);
  const way = wayOf(target);
  console.log(
    `      ${way} ${fallback === "default" ? "with the default (the fallback)" : fallback ? "with the fallback" : "without the fallback"}: ${p.lost} of ${p.sent} probes lost, longest gap ${p.longest_gap_ms} ms${p.lost > 0 ? `; ${lostByPair(p)}${proberDrops(p)}` : ""}`,
  );
  expect(run.exitCode, run.output).to.equal(0);
  expect(p.sent, "the prober ran").to.be.greaterThan(1000);
  return { run, p };
}

/**
 * What calico_encap_migrate writes: resourceVersions of the pools, the FelixConfigurations, calico-config and
 * calico-node's template, without ClusterInformation (calico-node writes its own at start).
 */
async function writtenMarks(lab: Lab): Promise<Record<string, string>> {
  return Object.fromEntries(
    Object.entries(await resourceVersions(lab)).filter(
      ([k]) => !k.startsWith("ClusterInformation/"),
    ),
  );
}

/**
 * writtenMarks once they stayed the same for 3 s, a wait before each run of the chain. Added while the chain killed only
 * ansible-playbook's process group, whose orphaned worker went on writing (runPlaybookKilled now kills the whole
 * tree); what it still covers: a command the backend had already sent to node-1 over SSH may land after the kill.
 */
async function settledMarks(lab: Lab): Promise<Record<string, string>> {
  let last = await writtenMarks(lab);
  for (;;) {
    await new Promise((r) => setTimeout(r, 3000));
    const now = await writtenMarks(lab);
    if (changedMarks(last, now).length === 0) return now;
    last = now;
  }
}

/** The objects whose mark differs between two writtenMarks (or exists in one only). */
function changedMarks(a: Record<string, string>, b: Record<string, string>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k]).sort();
}

/** In migrate.yml's output: the fallback's play has removed what an earlier run left and begins the migration. */
const MIGRATION_BEGINS =
  /PLAY \[Move the cluster to the inventory's Calico encapsulation\][\s\S]*Flush the fallback's routes[\s\S]*TASK \[calico_encap : Validating arguments against arg spec 'migrate'/;

/** In migrate.yml's output: the fallback is installed on every host and the migration to the end begins. */
const FALLBACK_INSTALLED =
  /Add the rules, to each pool's CIDR, that consult main[\s\S]*TASK \[calico_encap : Validating arguments against arg spec 'migrate'/;

/** The nodes that have any of the fallback (a rule at 1040 or 1041, a route in 1041 or of protocol 141). */
async function nodesWithFallback(): Promise<string[]> {
  const out: string[] = [];
  for (const node of NODES) {
    const on = await fallbackOn(node);
    if (on.rules.length + on.routes.length > 0) out.push(node);
  }
  return out;
}

/** The hosts on which the play's task changed something (`changed: [node-2]` lines after its TASK line). */
function changedBy(run: PlaybookRun | { output: string }, task: string): string[] {
  const hosts = new Set<string>();
  let inTask = false;
  for (const line of run.output.split("\n")) {
    if (line.startsWith("TASK [")) inTask = line.includes(task);
    const m = /^changed: \[([^\]]+)\]/.exec(line);
    if (inTask && m?.[1]) hosts.add(m[1]);
  }
  return [...hosts].sort();
}

describe("issue 41's fallback on BIRD's path through the product (stop_before, the role's install and removal)", function () {
  this.timeout(TIER === "full" ? 2400000 : 900000);
  let lab: Lab;
  let inventory: string;
  let felixPathIn: boolean;
  /** Every migrate.yml run the prober measured on BIRD's path, in order. */
  const measured: { way: string; fallback: boolean; lost: number; sent: number; gapMs: number }[] =
    [];
  /** A measured migrate.yml run on BIRD's path; with the fallback (its default, or asked for), it loses no probe. */
  async function birdPathRun(target: typeof INTO_VXLAN, how: Fallback): Promise<PlaybookRun> {
    const { run, p } = await measuredPlaybook(lab, inventory, target, how);
    const way = wayOf(target);
    const fallback = how !== false;
    measured.push({ way, fallback, lost: p.lost, sent: p.sent, gapMs: p.longest_gap_ms });
    if (fallback)
      expect(
        p.lost,
        `${way} with the fallback, no probe lost: ${lostByPair(p)}${proberDrops(p)}`,
      ).to.equal(0);
    return run;
  }
  before(async () => {
    // Every node real (a network namespace with calico-node), not only the lab's first three.
    lab = await labUp("kubespray-2.18", NODE_COUNT, undefined, {
      LAB_DATAPLANE_NODES: String(NODE_COUNT),
    });
    expect(realCalicoNode(lab), "the real calico-node runs on the nodes").to.equal(true);
    inventory = inventoryOf(lab);
    felixPathIn = hasClusterRoutes(lab.env.LAB_CALICO_RELEASE ?? null);
    await waitUntil("calico-node ready with BIRD on every node", () => {
      const s = nodesStatus(lab).summary;
      return s.podsReady === NODE_COUNT && s.birdRunning === NODE_COUNT;
    });
    await nothingLeft("before any run");
    await startProber(lab, 3600);
  });
  after(async () => {
    await labDown();
  });

  it("into VXLAN: stops before the switch with every VTEP, names each node's routes, installs them as named; migrate.yml with the fallback then removes them (a killed play's leftovers), finishes, and leaves nothing", async () => {
    const args = { ...migrateArgs(lab), ...INTO_VXLAN, tunnel_pool_cidr: TUNNEL_CIDR };
    if (felixPathIn) {
      // Calico v3.31: into VXLAN with the tunnel pool is Felix's path; the stop is refused before any write.
      const before = await resourceVersions(lab);
      const r = (await runTask({ calico_encap_migrate: { ...args, stop_before: "pool_switch" } }))
        .result;
      expect(r.failed, r.msg).to.equal(true);
      expect(r.msg).to.match(
        /^Refused before any write: stop_before: pool_switch is for BIRD's path, and this migration takes Felix's/,
      );
      expect(await resourceVersions(lab), "nothing written").to.deep.equal(before);
      const run = (await runTask({ calico_encap_migrate: args })).result;
      expect(run.failed, run.msg).to.not.equal(true);
      expect(await poolModes(lab)).to.include({ vxlanMode: "Always" });
      return;
    }
    const check = (
      await runTask(
        { calico_encap_migrate: { ...args, stop_before: "pool_switch" } },
        { args: ["--check"] },
      )
    ).result;
    expect(check.stopped_before, check.msg).to.match(
      /^Switch IPPool default-pool to ipipMode Never, vxlanMode Always/,
    );
    expect(check.plan, "check mode's plan: the steps before the stop").to.have.length(2);

    const r: TaskResult = (
      await runTask({ calico_encap_migrate: { ...args, stop_before: "pool_switch" } })
    ).result;
    expect(r.failed, r.msg).to.not.equal(true);
    expect(r.msg).to.match(
      /^Stopped before step 'Switch IPPool default-pool to ipipMode Never, vxlanMode Always/,
    );
    expect(r.stopped_before).to.equal(check.stopped_before);
    expect(check.changed, "check mode: the two steps before the stop change the cluster").to.equal(
      true,
    );
    expect(await poolModes(lab), "the pool has not switched").to.include({ ipipMode: "Always" });
    // Check mode at the stop: nothing is left to write before it, so nothing would change (issue 52 finding 9: it
    // reported the whole plan's writes, the switch's included).
    const atStop = (
      await runTask(
        { calico_encap_migrate: { ...args, stop_before: "pool_switch" } },
        { args: ["--check"] },
      )
    ).result;
    expect(atStop.stopped_before, atStop.msg).to.equal(r.stopped_before);
    expect(atStop.changed, atStop.msg).to.equal(false);
    expect(
      (atStop.plan as { write: unknown }[]).filter((s) => s.write !== null),
      "no write before the stop",
    ).to.have.length(0);
    // The names against the kernels: each other node's block via that node's VTEP.
    const vteps: Record<string, string> = {};
    const blocks: Record<string, string[]> = {};
    for (const n of NODES) {
      vteps[n] = await vtepOf(n);
      blocks[n] = await blocksOf(n);
      expect(vteps[n], `${n}'s VTEP in the tunnel pool`).to.match(/^172\.30\.0\.\d+$/);
      expect(blocks[n], `${n} holds a block`).to.have.length.above(0);
    }
    // One list for the cluster: every Node's block via its VTEP; each Node's table takes the other Nodes'.
    const routes = r.fallback_routes as Named[];
    expect(r.fallback_nodes, "fallback_nodes").to.deep.equal(NODES);
    const expected = NODES.flatMap((p) =>
      (blocks[p] ?? []).map((dst) => ({
        dst,
        via: vteps[p],
        dev: "vxlan.calico",
        onlink: true,
        peer: p,
      })),
    );
    expect(
      [...routes].sort((a, b) => a.dst.localeCompare(b.dst)),
      "fallback_routes",
    ).to.deep.equal(expected.sort((a, b) => a.dst.localeCompare(b.dst)));
    const mine = (n: string): Named[] => routes.filter((x) => x.peer !== n);

    // The fallback's rules are scoped to the switching pool (issue 52 item 2): every other destination keeps the
    // host's own rules.
    expect(r.fallback_cidrs, "fallback_cidrs").to.deep.equal(["10.233.64.0/18"]);
    const cidrs = r.fallback_cidrs as string[];
    const installed = await install(inventory, routes, NODES, cidrs);
    expect(installed.exitCode, installed.output).to.equal(0);
    for (const n of NODES) {
      const on = await fallbackOn(n);
      expect(on.rules, n).to.deep.equal([
        {
          priority: 1040,
          src: "all",
          dst: "10.233.64.0",
          dstlen: 18,
          table: "main",
          suppress_prefixlen: 0,
        },
        { priority: 1041, src: "all", dst: "10.233.64.0", dstlen: 18, table: TABLE },
      ]);
      expect(
        on.routes.map((x) => [x.dst, x.gateway, x.dev, x.protocol, x.table, x.flags]).sort(),
        n,
      ).to.deep.equal(
        mine(n)
          .map((x) => [x.dst, x.via, x.dev, PROTOCOL, TABLE, ["onlink"]])
          .sort(),
      );
    }
    const again = await install(inventory, routes, NODES, cidrs);
    expect(again.exitCode, again.output).to.equal(0);
    expect(changedBy(again, "calico_encap : "), "a second install changes nothing").to.deep.equal(
      [],
    );

    // The play stops here, as if killed: migrate.yml at its default (the fallback, on BIRD's path) removes the
    // leftovers first, stops before the switch again (nothing to write), installs, finishes and removes.
    const run = await birdPathRun(INTO_VXLAN, "default");
    expect(changedBy(run, "Delete the fallback's rules")).to.deep.equal(NODES);
    expect(changedBy(run, "Add the fallback routes")).to.deep.equal(NODES);
    expect(run.output).to.match(
      /"msg": "Migrated in \d step\(s\): Switch IPPool default-pool to ipipMode Never, vxlanMode Always/,
    );
    expect(await poolModes(lab)).to.include({ vxlanMode: "Always" });
    await nothingLeft("after migrate.yml with the fallback into VXLAN");
  });

  it("out of VXLAN with the tunnel pool kept: migrate.yml at its default installs the fallback's VXLAN routes on every node through the switch, loses no probe, and leaves nothing", async () => {
    const run = await birdPathRun(OUT_OF_VXLAN, "default");
    expect(changedBy(run, "Add the fallback routes")).to.deep.equal(NODES);
    // The rules go at the removal; the routes went before it, with vxlan.calico, when the step after the switch
    // turned vxlanEnabled off (a device's routes go with it).
    expect(changedBy(run, "Delete the fallback's rules")).to.deep.equal(NODES);
    expect(run.output).to.match(
      /Stopped before step 'Switch IPPool default-pool to ipipMode Always, vxlanMode Never/,
    );
    expect(await poolModes(lab)).to.include({ ipipMode: "Always" });
    await nothingLeft("after migrate.yml with the fallback out of VXLAN");
    const second = await runPlaybook("migrate", inventory, {
      extraVars: { calico_encap_bird_path_fallback: true, ...asInventory(OUT_OF_VXLAN) },
    });
    expect(second.exitCode, second.output).to.equal(0);
    expect(changedBy(second, "calico_encap : "), "a second run changes nothing").to.deep.equal([]);
    await nothingLeft("after a second run");
  });

  // The quick tier's yardstick: the way into VXLAN again, opted out of the fallback (calico_encap_bird_path_fallback:
  // false), in the same run, printed beside the runs above: what the default saves here (BIRD's path in place).
  if (TIER !== "full")
    it("the way into VXLAN opted out of the fallback, in the same run: the yardstick, printed", async function () {
      if (felixPathIn) this.skip();
      const run = await birdPathRun(INTO_VXLAN, false);
      expect(changedBy(run, "Add the fallback routes"), "no fallback installed").to.deep.equal([]);
      expect(run.output).not.to.include("Fallback removal on");
      expect(await poolModes(lab)).to.include({ vxlanMode: "Always" });
      const line = (fallback: boolean) =>
        measured
          .filter((m) => m.fallback === fallback && m.way === "into VXLAN")
          .map((m) => `${m.lost} of ${m.sent} (gap ${m.gapMs} ms)`)
          .join(", ");
      console.log(
        `      into VXLAN: with the default (the fallback) ${line(true)}; opted out ${line(false)}`,
      );
    });

  // The yardstick and the kill chain run in the full tier (issue 50: make test within 45 minutes cold). The quick tier
  // keeps each class: both ways with the fallback asserted at 0 lost, and the first case's leftovers of a stopped
  // play removed by the next run; what the fallback saves, and the whole process tree killed mid-run, in make test-full.
  if (TIER === "full")
    it("the same tour without the fallback in the same run, then twice more each way, alternating: what the fallback saves", async () => {
      const ways = (fallback: boolean) => [
        { target: INTO_VXLAN, fallback: fallback && !felixPathIn },
        { target: OUT_OF_VXLAN, fallback },
      ];
      const tour = [false, true, false, true, false].flatMap(ways);
      for (const { target, fallback } of tour) {
        if (target === INTO_VXLAN && felixPathIn) {
          // Calico v3.31: the way into VXLAN is Felix's path, not measured here.
          const run = await runPlaybook("migrate", inventory, { extraVars: asInventory(target) });
          expect(run.exitCode, run.output).to.equal(0);
          continue;
        }
        await birdPathRun(target, fallback);
        await nothingLeft(`after migrate.yml ${fallback ? "with" : "without"} the fallback`);
      }
      const total = (fallback: boolean, way: string) =>
        measured
          .filter((m) => m.fallback === fallback && m.way === way)
          .map((m) => `${m.lost} of ${m.sent} (gap ${m.gapMs} ms)`)
          .join(", ");
      for (const way of ["into VXLAN", "out of VXLAN"])
        console.log(
          `      ${way}: with the fallback ${total(true, way) || "-"}; without ${total(false, way) || "-"}`,
        );
      expect(
        measured.filter((m) => !m.fallback),
        "the yardstick ran",
      ).to.have.length.above(0);
    });

  if (TIER === "full")
    it("migrate.yml with the fallback, killed at each write both ways and run again: each run removes what the last one left and the last leaves nothing", async () => {
      const inVxlan = (await poolModes(lab)).vxlanMode === "Always";
      const ways = inVxlan ? [OUT_OF_VXLAN] : [INTO_VXLAN];
      ways.push(inVxlan ? INTO_VXLAN : OUT_OF_VXLAN);
      if (felixPathIn) {
        // Calico v3.31: only the way out of VXLAN is BIRD's; the way in (Felix's path) refuses the fallback.
        if (!inVxlan) {
          const run = await runPlaybook("migrate", inventory, {
            extraVars: asInventory(INTO_VXLAN),
          });
          expect(run.exitCode, run.output).to.equal(0);
        }
        ways.splice(0, ways.length, OUT_OF_VXLAN);
      }
      for (const target of ways) {
        const way = wayOf(target);
        const kills: string[] = [];
        let left: string[] = [];
        let leftSeen = 0;
        for (let i = 1; ; i++) {
          expect(i, `${way}: the chain ends within 12 runs (${kills.join("; ")})`).to.be.at.most(
            12,
          );
          let before = await settledMarks(lab);
          let written: string[] = [];
          let migrating = false;
          // Killed as soon as the first write of this run's migration is seen in the cluster (polled every 0.3 s):
          // the marks are taken again once the removal of an earlier run's fallback is done and the migration begins.
          const run = await runPlaybookKilled(
            "migrate",
            inventory,
            { calico_encap_bird_path_fallback: true, ...asInventory(target) },
            async (output) => {
              if (!migrating) {
                if (!MIGRATION_BEGINS.test(output)) return false;
                migrating = true;
                before = await writtenMarks(lab);
                return false;
              }
              return (written = changedMarks(before, await writtenMarks(lab))).length > 0;
            },
          );
          if (left.length > 0) {
            leftSeen++;
            expect(
              changedBy(run, "Delete the fallback's rules"),
              `${way}, run ${i}: it first removes what run ${i - 1} left (${kills.join("; ")}); its output:\n${run.output.slice(-4000)}`,
            ).to.include.members(left);
          }
          if (!run.killed) {
            expect(run.exitCode, run.output).to.equal(0);
            kills.push(`run ${i} completed`);
            break;
          }
          left = await nodesWithFallback();
          kills.push(
            `run ${i} killed at a write to ${written.join(", ")}, the fallback left on ${left.length} node(s)`,
          );
        }
        console.log(`      ${way}: ${kills.join("; ")}`);
        expect(leftSeen, `${way}: at least one kill left the fallback installed`).to.be.above(0);
        await nothingLeft(`after the chain ${way}`);
        expect(await poolModes(lab)).to.include(
          target === INTO_VXLAN ? { vxlanMode: "Always" } : { ipipMode: "Always" },
        );
      }
    });

  it("migrate.yml with the fallback rolled back (the API server stopped past wait_timeout after the pool switch): the fallback removed from every node, the pool as it began (full tier, before v3.31)", async function () {
    // Not on v3.31: there the fallback is for the way out of VXLAN only, and that way's rollback goes back into VXLAN
    // on Felix's path, turning programClusterRoutes on; the Felix restarts that takes outlast this test's 10 s
    // wait_timeout, so the rollback is reported as not settled (seen on v3.31.0, 2026-12-06).
    if (TIER !== "full" || felixPathIn) this.skip();
    const target = (await poolModes(lab)).vxlanMode === "Always" ? OUT_OF_VXLAN : INTO_VXLAN;
    const began = await poolModes(lab);
    const apiserver = readFileSync(join(lab.state, "run", "kube-apiserver.pid"), "utf8").trim();
    let marks: Record<string, string> | null = null;
    let paused = false;
    // Once the fallback is on every node and the migration's first write (the pool switch) is seen, the API server
    // is stopped for 16 s: reads time out after 3 s (command_timeout), the wait gives up after 10 s (wait_timeout)
    // and the run rolls back once the API server is back.
    const run = await runPlaybookKilled(
      "migrate",
      inventory,
      {
        calico_encap_bird_path_fallback: true,
        ...asInventory(target),
        calico_encap_wait_timeout: 10,
        calico_encap_command_timeout: 3,
      },
      async (output) => {
        if (paused || !FALLBACK_INSTALLED.test(output)) return false;
        if (marks === null) {
          marks = await writtenMarks(lab);
          return false;
        }
        if (changedMarks(marks, await writtenMarks(lab)).length === 0) return false;
        paused = true;
        await execa("kill", ["-STOP", apiserver]);
        try {
          await new Promise((r) => setTimeout(r, 16000));
        } finally {
          await execa("kill", ["-CONT", apiserver]);
        }
        return false;
      },
    );
    expect(paused, "the API server was stopped after the pool switch").to.equal(true);
    expect(run.exitCode, run.output).to.not.equal(0);
    expect(run.output).to.include(
      "rolled back to the state before the first write and verified it",
    );
    expect(changedBy(run, "Delete the fallback's rules"), run.output.slice(-3000)).to.deep.equal(
      NODES,
    );
    await nothingLeft("after the rollback");
    expect(await poolModes(lab), "the pool as it began").to.deep.equal(began);
  });
});
