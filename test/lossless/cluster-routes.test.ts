// Felix owns the routes through the switch (issue 20): the real calico-node v3.31.0 with FelixConfiguration
// programClusterRoutes Enabled, on a lab whose nodes have the stand-in tunl0 (test/lab/net.sh, LAB_TUNL0=1: a veth
// into a bridge of its own, which carries what Felix routes via tunl0 without the IP-in-IP header). What it
// measures, each with the prober on the same lab: first the yardsticks, today's path with BIRD owning the IPIP
// routes (IPIP -> VXLAN with tunnel_pool_cidr, and back); then Felix taking the IPIP routes over from BIRD, the
// switch of the main pool IPIP -> VXLAN (the VTEPs already in the tunnel pool), and the way back with the IPIP
// tunnel addresses allocated first from a Tunnel-only IPIP pool. Run by hand (make test-cluster-routes); in no tier yet (test/lossless/ is outside the lab queue).

import { expect } from "chai";
import { execa } from "execa";
import { runTask, type TaskResult } from "../support/ansible.js";
import {
  calicoctl,
  expectLossInPoolSwitch,
  labDown,
  labUp,
  lossByStep,
  migrateArgs,
  nodeAnnotations,
  readProber,
  resetProber,
  startProber,
  waitUntil,
  type Lab,
  type ProberFigures,
  type StepTiming,
} from "../support/lab.js";

const NODES = ["node-1", "node-2", "node-3"];
const PREFIX = process.env.LAB_NETNS_PREFIX ?? "calab-";
const IPIP_ADDR = "projectcalico.org/IPv4IPIPTunnelAddr";
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Route {
  dst: string;
  type?: string;
  gateway?: string;
  dev?: string;
  protocol?: string;
  flags: string[];
}

async function routes(node: string): Promise<Route[]> {
  const r = await execa("ip", ["-n", `${PREFIX}${node}`, "-j", "route", "show", "table", "main"]);
  return JSON.parse(r.stdout) as Route[];
}

/** The routes to the other nodes' pod blocks (10.233.64.0/18 in the kubespray-2.18 profile): via a peer, not the
 *  node's own blackhole or its pods' cali* routes. */
async function blockRoutes(node: string): Promise<Route[]> {
  return (await routes(node)).filter(
    (r) =>
      r.dst.startsWith("10.233.") &&
      r.gateway !== undefined &&
      ["eth0", "tunl0", "vxlan.calico"].includes(r.dev ?? ""),
  );
}

function describeLoss(p: ProberFigures, steps: StepTiming[] = []): string {
  return `${p.lost} of ${p.sent} lost, longest gap ${p.longest_gap_ms} ms, by step ${JSON.stringify(lossByStep(p, steps))}`;
}

const TO_VXLAN_BIRD = {
  ipip_mode: "Never",
  vxlan_mode: "Always",
  network_backend: "bird",
  tunnel_pool_cidr: "172.30.0.0/24",
};
const TO_IPIP_BIRD = { ipip_mode: "Always", vxlan_mode: "Never", network_backend: "bird" };
let yardstickBack = -1;

/** Merges `spec` into FelixConfiguration default, as calicoctl patch does. */
async function patchFelix(lab: Lab, spec: Record<string, unknown>): Promise<void> {
  await calicoctl(
    lab,
    "patch",
    "felixconfiguration",
    "default",
    "--patch",
    JSON.stringify({ spec }),
  );
}

/** One calico_encap_migrate run through Ansible, the prober reset before it. */
async function migrate(
  lab: Lab,
  to: Record<string, unknown>,
): Promise<{ r: TaskResult; steps: StepTiming[]; p: ProberFigures }> {
  await resetProber(lab);
  const r: TaskResult = (await runTask({ calico_encap_migrate: { ...migrateArgs(lab), ...to } }))
    .result;
  return { r, steps: (r.steps ?? []) as StepTiming[], p: await readProber(lab) };
}

/** The run succeeded, every node routes the other blocks as `want` (each route shown by `show`), and it lost nothing. */
async function expectLossless(
  what: string,
  run: { r: TaskResult; steps: StepTiming[]; p: ProberFigures },
  show: (r: Route) => string,
  want: string[],
): Promise<void> {
  const { r, steps, p } = run;
  console.log(
    `      ${what}: ${describeLoss(p, steps)}; steps ${steps.map((s) => `${s.title} ${s.seconds} s`).join(" | ")}`,
  );
  expect(r.failed, r.msg).to.not.equal(true);
  for (const node of NODES) expect((await blockRoutes(node)).map(show), node).to.deep.equal(want);
  expect(p.sent).to.be.greaterThan(5000);
  expect(p.lost, describeLoss(p, steps)).to.equal(0);
}

describe("Felix owns the routes through the switch (programClusterRoutes, the lab's tunl0)", function () {
  this.timeout(900_000);
  let lab: Lab;
  before(async () => {
    lab = await labUp("kubespray-2.18", 3, undefined, { LAB_TUNL0: "1" });
    await startProber(lab);
  });
  after(labDown);

  it("Felix gives the lab's tunl0 the node's IPIP tunnel address and sets it up; BIRD routes the blocks", async () => {
    const annotations = await nodeAnnotations(lab);
    for (const node of NODES) {
      const addr = annotations[node]?.[IPIP_ADDR];
      expect(addr, `${node} has an IPIP tunnel address`).to.match(/^10\.233\./);
      await waitUntil(
        `${node}'s tunl0 up with ${addr}`,
        async () => {
          const link = JSON.parse(
            (await execa("ip", ["-n", `${PREFIX}${node}`, "-j", "addr", "show", "tunl0"])).stdout,
          ) as { flags: string[]; addr_info: { local: string }[] }[];
          return (
            (link[0]?.flags.includes("UP") ?? false) &&
            link[0]?.addr_info.map((a) => a.local).join() === addr
          );
        },
        60_000,
      );
      const mine = await blockRoutes(node);
      expect(
        mine.filter((r) => r.protocol === "bird"),
        `${node}: ${JSON.stringify(mine)}`,
      ).to.have.length(2);
    }
  });

  it("yardsticks: today's path, BIRD owning the IPIP routes: IPIP -> VXLAN with tunnel_pool_cidr, and back", async () => {
    const into = await migrate(lab, TO_VXLAN_BIRD);
    console.log(
      `      yardstick IPIP -> VXLAN (tunnel pool, BIRD's routes): ${describeLoss(into.p, into.steps)}`,
    );
    expect(into.r.failed, into.r.msg).to.not.equal(true);
    expectLossInPoolSwitch(into.p, into.steps);
    const back = await migrate(lab, TO_IPIP_BIRD);
    console.log(
      `      yardstick VXLAN -> IPIP (BIRD's routes): ${describeLoss(back.p, back.steps)}`,
    );
    expect(back.r.failed, back.r.msg).to.not.equal(true);
    expectLossInPoolSwitch(back.p, back.steps);
    yardstickBack = back.p.lost;
  });

  it("programClusterRoutes Enabled: every Felix restarts and routes each remote block via the peer on tunl0", async () => {
    await resetProber(lab);
    const t0 = Date.now();
    await patchFelix(lab, { programClusterRoutes: "Enabled" });
    for (const node of NODES)
      await waitUntil(
        `${node}'s remote blocks via tunl0 (protocol 80)`,
        async () => {
          const mine = await blockRoutes(node);
          return (
            mine.length === 2 &&
            mine.every(
              (r) => r.dev === "tunl0" && r.protocol === "80" && r.flags.includes("onlink"),
            )
          );
        },
        120_000,
      );
    console.log(`      every node's remote blocks via tunl0 after ${Date.now() - t0} ms`);
    await sleep(8000);
    const p = await readProber(lab);
    console.log(`      BIRD -> Felix handover: ${describeLoss(p)}`);
    expect(p.lost, describeLoss(p)).to.equal(0);
  });

  it("IPIP/bird -> VXLAN/bird under programClusterRoutes (VTEPs in the tunnel pool) loses nothing", async () => {
    await expectLossless(
      "IPIP -> VXLAN, Felix owning the routes",
      await migrate(lab, TO_VXLAN_BIRD),
      (x) => x.dev ?? "",
      ["vxlan.calico", "vxlan.calico"],
    );
  });

  it("VXLAN/bird -> IPIP/bird with the IPIP tunnel addresses allocated first loses nothing", async () => {
    // ipipEnabled true and a Tunnel-only IPIP pool: every node gets its IPIP tunnel address, Felix sets tunl0 up.
    await patchFelix(lab, { ipipEnabled: true });
    await execa(lab.calicoctlSh, ["apply", "-f", "-"], {
      input: JSON.stringify({
        apiVersion: "projectcalico.org/v3",
        kind: "IPPool",
        metadata: { name: "default-pool-ipip-tunnel" },
        spec: {
          cidr: "172.30.1.0/24",
          ipipMode: "Always",
          vxlanMode: "Never",
          natOutgoing: false,
          blockSize: 32,
          allowedUses: ["Tunnel"],
          disableBGPExport: true,
          nodeSelector: "all()",
        },
      }),
    });
    for (const node of NODES)
      await waitUntil(
        `${node} has an IPIP tunnel address in the tunnel pool`,
        async () => ((await nodeAnnotations(lab))[node]?.[IPIP_ADDR] ?? "").startsWith("172.30.1."),
        120_000,
      );
    await sleep(8000);
    await expectLossless(
      "VXLAN -> IPIP, Felix owning the routes",
      await migrate(lab, TO_IPIP_BIRD),
      (x) => `${x.dev} ${x.protocol}`,
      ["tunl0 80", "tunl0 80"],
    );
    console.log(`      against the same run's yardstick, today's way back: ${yardstickBack} lost`);
  });
});
