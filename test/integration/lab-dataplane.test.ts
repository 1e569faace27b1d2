// The lab's data plane against the real kernel: a lab of its own (state, ports, bridge, namespace prefix and
// underlay apart from the default lab, so it runs beside one), hand-written specs applied to the node
// namespaces, the prober measuring loss between pod addresses, and node-1 driven over real SSH and Ansible.
// Needs root and the lab's built binaries (make lab-build); without them it fails, it does not skip.

import { expect } from "chai";
import { execa } from "execa";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyDataplane, readNode } from "../lab/dataplane/apply.js";
import { meshNode, meshSpec, withoutRoute } from "../lab/dataplane/mesh.js";
import { planNode } from "../lab/dataplane/plan.js";
import type { DataplaneSpec } from "../lab/dataplane/spec.js";
import type { ProberReport } from "../lab/prober/control.js";
import {
  agentsFromSpec,
  readProber,
  resetProber,
  startProber,
  stopProber,
} from "../lab/prober/control.js";
import { REPO, VENV_BIN } from "../support/ansible.js";

const LAB_SH = join(REPO, "test", "lab", "lab.sh");
const PREFIX = "dpi-";
const UNDERLAY = "172.31.252";
const ROOT = mkdtempSync(join(tmpdir(), "lab-dataplane-"));
const STATE = join(ROOT, "lab");
const ENV = {
  LAB_STATE: STATE,
  LAB_ETCD_PORT: "25890",
  LAB_ETCD_PEER_PORT: "25891",
  LAB_APISERVER_PORT: "25892",
  LAB_KCM_PORT: "25893",
  LAB_SCHEDULER_PORT: "25894",
  LAB_BRIDGE: "dpi0",
  LAB_NETNS_PREFIX: PREFIX,
  LAB_UNDERLAY: UNDERLAY,
  LAB_DATAPLANE_NODES: "3",
  NODES: "3",
  PROFILE: "kubespray-2.18",
  // Hand-written specs only: the calico-node stand-in would program the same namespaces.
  LAB_STANDIN: "0",
  // Every node gets the stand-in for the kernel's IP-in-IP device (test/lab/net.sh, tunl0_up).
  LAB_TUNL0: "1",
};
const SSH_OPTS = [
  "-o",
  "StrictHostKeyChecking=no",
  "-o",
  "UserKnownHostsFile=/dev/null",
  "-o",
  "LogLevel=ERROR",
  "-o",
  "BatchMode=yes",
];
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function lab(cmd: "up" | "down" | "status"): Promise<string> {
  const r = await execa("bash", [LAB_SH, cmd], { env: ENV, reject: false });
  if (r.exitCode !== 0 && cmd !== "down")
    throw new Error(`lab.sh ${cmd} failed (${r.exitCode}):\n${r.stderr}`);
  return r.stdout;
}

async function apply(spec: DataplaneSpec): Promise<number> {
  const t0 = performance.now();
  await applyDataplane(spec, { netnsPrefix: PREFIX });
  return performance.now() - t0;
}

/** Resets the counters, waits, and reads them. */
async function measure(ms: number, during?: () => Promise<void>): Promise<ProberReport> {
  await resetProber(STATE);
  if (during) await during();
  await sleep(ms);
  // Probes sent in the last second may still be waiting for their echo (or their timeout).
  await sleep(1100);
  return readProber(STATE);
}

function lossByPair(r: ProberReport): Record<string, number> {
  return Object.fromEntries(r.pairs.map((p) => [`${p.from}->${p.to}`, p.lost]));
}

describe("lab data plane (namespaces, VXLAN and BGP routes, prober, SSH)", function () {
  this.timeout(180_000);
  const vxlan = meshSpec({ kind: "vxlan", nodes: 3, underlay: UNDERLAY });
  const bgp = meshSpec({ kind: "bgp", nodes: 3, underlay: UNDERLAY });

  before(async () => {
    if (process.getuid?.() !== 0) throw new Error("the data plane test needs root (namespaces)");
    await lab("down");
    await lab("up");
  });

  after(async () => {
    await stopProber(STATE).catch(() => undefined);
    await lab("down");
    rmSync(ROOT, { recursive: true, force: true });
    const left = await execa("ip", ["netns", "list"]);
    expect(left.stdout).not.to.include(PREFIX);
  });

  it("creates one namespace per data-plane node on the lab's underlay", async () => {
    const status = JSON.parse(await lab("status")) as {
      dataplane: { nodes: { netns: string; present: boolean }[]; sshd: boolean };
    };
    expect(status.dataplane.nodes.map((n) => [n.netns, n.present])).to.deep.equal([
      ["dpi-node-1", true],
      ["dpi-node-2", true],
      ["dpi-node-3", true],
    ]);
    expect(status.dataplane.sshd).to.equal(true);
    await execa("ip", ["netns", "exec", "dpi-node-2", "ping", "-c1", "-W1", `${UNDERLAY}.13`]);
  });

  it("a VXLAN full mesh carries every ordered pair at 100 pps or more without loss", async () => {
    const ms = await apply(vxlan);
    console.log(`      applyDataplane (VXLAN mesh, 3 empty nodes): ${ms.toFixed(0)} ms`);
    for (const n of vxlan.nodes) {
      const plan = planNode(n, vxlan.vxlan, await readNode(`${PREFIX}${n.name}`));
      expect(plan, `${n.name} after apply`).to.deep.equal({ ip: [], bridge: [] });
    }
    await startProber(agentsFromSpec(vxlan, PREFIX), {
      state: STATE,
      netnsPrefix: PREFIX,
      maxSeconds: 600,
    });
    const r = await measure(3000);
    expect(r.pairs).to.have.length(6);
    for (const p of r.pairs) {
      expect(p.lost, `${p.from}->${p.to}`).to.equal(0);
      expect(p.rate_pps, `${p.from}->${p.to}`).to.be.at.least(98);
      expect(p.received, `${p.from}->${p.to}`).to.be.greaterThan(250);
    }
    console.log(
      `      prober: ${r.rate_pps} pps total, longest gap ${r.longest_gap_ms} ms, lost ${r.lost}`,
    );
  });

  it("applying the same spec again changes nothing", async () => {
    const ms = await apply(vxlan);
    console.log(`      applyDataplane (no change): ${ms.toFixed(0)} ms`);
    const r = await measure(1000);
    expect(r.lost).to.equal(0);
  });

  it("a VXLAN route removed from one node loses packets on exactly that pair, both ways", async () => {
    const cut = withoutRoute(vxlan, "node-1", "node-3");
    let cutAt = 0;
    const r = await measure(1500, async () => {
      cutAt = Date.now();
      await apply(cut);
    });
    const readAt = Date.now();
    const loss = lossByPair(r);
    // The prober dates its losses: the first after the cut, the last at least 1 s before the read (probe timeout).
    const pair = r.pairs.find((p) => p.from === "node-1" && p.to === "node-3");
    expect(Date.parse(pair?.first_lost_at ?? "")).to.be.within(cutAt - 50, cutAt + 1000);
    expect(Date.parse(r.last_lost_at ?? "")).to.be.within(cutAt + 1000, readAt - 900);
    expect(r.pairs.find((p) => p.from === "node-1" && p.to === "node-2")?.first_lost_at).to.equal(
      null,
    );
    expect(loss["node-1->node-3"]).to.be.greaterThan(50);
    // node-3's probes reach node-1, whose echo has no route back.
    expect(loss["node-3->node-1"]).to.be.greaterThan(50);
    for (const pair of ["node-1->node-2", "node-2->node-1", "node-2->node-3", "node-3->node-2"])
      expect(loss[pair], pair).to.equal(0);
    const gap = r.pairs.find((p) => p.from === "node-1" && p.to === "node-3")?.longest_gap_ms;
    expect(gap).to.be.greaterThan(1000);
  });

  it("switching every node to BGP routes deletes vxlan.calico and carries every pair without loss", async () => {
    const ms = await apply(bgp);
    console.log(`      applyDataplane (VXLAN -> BGP): ${ms.toFixed(0)} ms`);
    for (const n of bgp.nodes) {
      const obs = await readNode(`${PREFIX}${n.name}`);
      expect(obs.vxlan, n.name).to.equal(null);
      expect(obs.routes.filter((r) => r.protocol === 81)).to.have.length(2);
      expect(obs.routes.filter((r) => r.protocol === 80)).to.have.length(0);
    }
    const r = await measure(2000);
    expect(r.lost, JSON.stringify(lossByPair(r))).to.equal(0);
  });

  it("a BGP route removed from one node loses packets on exactly that pair", async () => {
    const r = await measure(1500, async () => {
      await apply(withoutRoute(bgp, "node-2", "node-3"));
    });
    const loss = lossByPair(r);
    expect(loss["node-2->node-3"]).to.be.greaterThan(50);
    expect(loss["node-3->node-2"]).to.be.greaterThan(50);
    for (const pair of ["node-1->node-2", "node-2->node-1", "node-1->node-3", "node-3->node-1"])
      expect(loss[pair], pair).to.equal(0);
    await apply(bgp);
    const healed = await measure(1000);
    expect(healed.lost).to.equal(0);
  });

  describe("tunl0, the stand-in for the IP-in-IP device, routed as Felix routes IPIP blocks", () => {
    const ns = (node: string): string => `${PREFIX}${node}`;
    const inNs = (node: string, ...cmd: string[]) =>
      execa("ip", ["netns", "exec", ns(node), ...cmd]);
    /** What Felix's IPIP manager does to an existing tunl0 (v3.31 route_mgr.go configureTunnelDevice): MTU, the
     *  node's tunnel address as its only IPv4 address, up; then its routes with programClusterRoutes: each remote
     *  block via the peer's node address on tunl0, onlink, protocol 80, replacing BIRD's. Strict rp_filter on tunl0.
     *  Every node's device first, then the routes: the kernel's tunl0 is NOARP, so a real node routes through it at
     *  once, whereas the stand-in's first packet to a peer resolves the peer by ARP on tunl0 (net.sh), and a request
     *  sent while the peer's tunl0 is still down is retried only a second later (retrans_time): loss the stand-in
     *  makes and IP-in-IP does not. */
    async function felixRoutes(spec: DataplaneSpec): Promise<void> {
      for (const n of spec.nodes) {
        const i = Number(n.name.replace("node-", ""));
        await execa("ip", [
          "-n",
          ns(n.name),
          "addr",
          "replace",
          `${meshNode(i, UNDERLAY).tunnelAddress}/32`,
          "dev",
          "tunl0",
        ]);
        await execa("ip", ["-n", ns(n.name), "link", "set", "tunl0", "mtu", "1480", "up"]);
        await inNs(n.name, "sysctl", "-qw", "net.ipv4.conf.tunl0.rp_filter=1");
      }
      for (const n of spec.nodes)
        for (const r of n.routes)
          await execa("ip", [
            "-n",
            ns(n.name),
            "route",
            "replace",
            r.block,
            "via",
            r.remoteUnderlayAddress,
            "dev",
            "tunl0",
            "onlink",
            "proto",
            "80",
          ]);
      await peersResolved(spec);
    }

    /** Waits until every node has resolved each peer on tunl0 (the prober's traffic asks), at most 10 s. */
    async function peersResolved(spec: DataplaneSpec): Promise<void> {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const pending: string[] = [];
        for (const n of spec.nodes) {
          const neigh = JSON.parse(
            (await execa("ip", ["-n", ns(n.name), "-j", "neigh", "show", "dev", "tunl0"])).stdout,
          ) as { dst: string; lladdr?: string; state?: string[] }[];
          for (const r of n.routes) {
            const e = neigh.find((x) => x.dst === r.remoteUnderlayAddress);
            if (!e?.lladdr)
              pending.push(
                `${n.name} -> ${r.remoteUnderlayAddress} (${e?.state?.join(",") ?? "no entry"})`,
              );
          }
        }
        if (!pending.length) return;
        if (Date.now() > deadline)
          throw new Error(
            `tunl0 neighbours unresolved after 10 s: ${pending.join("; ")}; expected every peer's node address resolved by ARP on the stand-in's tunl0 (test/lab/net.sh tunl0_up)`,
          );
        await sleep(100);
      }
    }

    after(async () => {
      await apply(bgp);
    });

    it("every node has a tunl0, down and without an address until Felix configures it", async () => {
      for (const n of bgp.nodes) {
        const link = JSON.parse(
          (await execa("ip", ["-n", ns(n.name), "-j", "addr", "show", "tunl0"])).stdout,
        ) as {
          flags: string[];
          addr_info: unknown[];
        }[];
        expect(link[0]?.flags, n.name).not.to.include("UP");
        expect(link[0]?.addr_info, n.name).to.deep.equal([]);
      }
    });

    it("carries every pair without loss through the peers' tunl0, strict rp_filter on", async () => {
      await felixRoutes(bgp);
      const via = await inNs(
        "node-1",
        "ip",
        "-j",
        "route",
        "get",
        meshNode(2, UNDERLAY).podAddress,
      );
      expect((JSON.parse(via.stdout) as { dev: string }[])[0]?.dev).to.equal("tunl0");
      const r = await measure(2000);
      expect(r.lost, JSON.stringify(lossByPair(r))).to.equal(0);
      // Arrivals come in on tunl0, as a decapsulated IP-in-IP packet does.
      const rx = JSON.parse(
        (await execa("ip", ["-n", ns("node-2"), "-j", "-s", "link", "show", "tunl0"])).stdout,
      ) as {
        stats64: { rx: { packets: number } };
      }[];
      expect(rx[0]?.stats64.rx.packets).to.be.greaterThan(250);
    });

    it("can fail: strict rp_filter drops what arrives on tunl0 when the way back is not tunl0", async () => {
      // node-2 routes node-1's block over the underlay again (BIRD's route without the tunnel): what node-1 sends
      // it through tunl0 fails node-2's reverse path check, both ways of that pair.
      const back = bgp.nodes[1]?.routes.find((x) => x.remoteNode === "node-1");
      const r = await measure(1500, async () => {
        await execa("ip", [
          "-n",
          ns("node-2"),
          "route",
          "replace",
          back?.block ?? "",
          "via",
          back?.remoteUnderlayAddress ?? "",
          "dev",
          "eth0",
          "proto",
          "81",
        ]);
      });
      const loss = lossByPair(r);
      expect(loss["node-1->node-2"]).to.be.greaterThan(50);
      expect(loss["node-2->node-1"]).to.be.greaterThan(50);
      for (const pair of ["node-1->node-3", "node-3->node-1", "node-2->node-3", "node-3->node-2"])
        expect(loss[pair], pair).to.equal(0);
      await felixRoutes(bgp);
      expect((await measure(1000)).lost).to.equal(0);
    });

    it("can fail: a peer's tunl0 down loses exactly its pairs", async () => {
      const r = await measure(1500, async () => {
        await execa("ip", ["-n", ns("node-3"), "link", "set", "tunl0", "down"]);
      });
      const loss = lossByPair(r);
      for (const pair of ["node-1->node-3", "node-3->node-1", "node-2->node-3", "node-3->node-2"])
        expect(loss[pair], pair).to.be.greaterThan(50);
      for (const pair of ["node-1->node-2", "node-2->node-1"]) expect(loss[pair], pair).to.equal(0);
      await felixRoutes(bgp);
      expect((await measure(1000)).lost).to.equal(0);
    });
  });

  it("lab.sh status reports the prober's figures", async () => {
    const status = JSON.parse(await lab("status")) as {
      prober: { agents: number; sent: number; lost: number; rate_pps: number };
    };
    expect(status.prober.agents).to.equal(3);
    expect(status.prober.sent).to.be.greaterThan(0);
    expect(status.prober.rate_pps).to.be.at.least(580);
  });

  it("node-1 answers SSH as root, and calicoctl.sh there reaches the apiserver", async () => {
    const key = join(STATE, "ssh", "id_ed25519");
    const bin = join(STATE, "node-1", "usr", "local", "bin");
    expect(existsSync(join(STATE, "node-1", "etc", "kubernetes", "admin.conf"))).to.equal(true);
    const r = await execa("ssh", [
      "-i",
      key,
      ...SSH_OPTS,
      `root@${UNDERLAY}.11`,
      `${bin}/calicoctl.sh get ippool -o json; readlink /proc/self/ns/net`,
    ]);
    const [json, netns] = [
      r.stdout.slice(0, r.stdout.lastIndexOf("\n")),
      r.stdout.split("\n").pop(),
    ];
    const pools = JSON.parse(json) as { items: { metadata: { name: string } }[] };
    expect(pools.items.map((p) => p.metadata.name)).to.deep.equal(["default-pool"]);
    const own = await execa("readlink", ["/proc/self/ns/net"]);
    expect(netns, "the SSH session runs in node-1's namespace").not.to.equal(own.stdout);
  });

  it("Ansible reaches node-1 through the inventory the lab writes", async () => {
    const ansible = join(VENV_BIN, "ansible");
    if (!existsSync(ansible)) throw new Error(`${ansible} missing: make setup`);
    const r = await execa(
      ansible,
      [
        "-i",
        join(STATE, "inventory.ini"),
        "kube_control_plane",
        "-m",
        "command",
        "-a",
        "{{ bin_dir }}/calicoctl.sh get nodes",
      ],
      { env: { ANSIBLE_HOST_KEY_CHECKING: "False" } },
    );
    expect(r.stdout).to.match(/node-1 \| CHANGED/);
    expect(r.stdout).to.include("node-3");
  });
});
