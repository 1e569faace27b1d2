// The planner over every (from, to) pair of encapsulations and backends, run to completion against a
// simulated cluster that converges after each write. A referee written here from the reference's rules (not
// the product's) checks that every steady state between steps gives every pair of nodes a route.

import { expect } from "chai";
import { checkPools } from "../../../src/calico/check/check.js";
import type { Backend, Live, Pool } from "../../../src/calico/shared/model.js";
import type { ClusterObservation, Target } from "../../../src/calico/shared/observation.js";
import { plan, type Write } from "../../../src/calico/plan/plan.js";
import { inventory, live218, pool } from "../../support/builders.js";
import type { Encap, Encap6 } from "../../support/sim-cluster.js";
import {
  applyWrite,
  BACKENDS,
  converge,
  ENCAPS,
  ENCAPS6,
  modes,
  start,
  target,
  V6_POOL,
} from "../../support/sim-cluster.js";

/** Calico can run it: IPIP and unencapsulated pools (of either family) need BIRD (backend bird). */
function runnable(e: Encap, b: Backend, v6?: Encap6): boolean {
  return b === "bird" || (e.startsWith("VXLAN") && (v6 === undefined || v6.startsWith("VXLAN")));
}

// ---- the referee: reference/calico.md, independently of src/calico ----
function felixOn(live: Live, flag: "ipipEnabled" | "vxlanEnabled", used: boolean): boolean {
  const explicit = live.felixDefault?.[flag];
  if (explicit !== undefined) return explicit;
  const derives = !/^v3\.(1\d|2[0-2])\./.test(live.calicoVersion ?? "");
  return derives ? used : false;
}

function pairsWithoutRoute(obs: ClusterObservation): string[] {
  const live = obs.live;
  // Pods' pools: a Tunnel-only pool holds VTEPs, no pod's address, so no traffic of its own needs a route.
  const pods = live.pools.filter((p) => p.allowedUses.includes("Workload"));
  const v4 = pods.filter((p) => p.ipVersion === 4 && !p.disabled);
  const v6 = pods.filter((p) => p.ipVersion === 6 && !p.disabled);
  const ipipUsed = v4.some((p) => p.ipipMode !== "Never");
  const vxlanUsed = v4.some((p) => p.vxlanMode !== "Never");
  const bird =
    (live.configMapBackend ?? "bird") === "bird" &&
    obs.rollout.templateBackend === live.configMapBackend;
  const out: string[] = [];
  for (const a of obs.nodes)
    for (const b of obs.nodes) {
      if (a === b) continue;
      // programClusterRoutes Enabled: Felix routes IPIP blocks via tunl0, up on both nodes once each has its IPIP
      // tunnel address (reference/felix-owned-routes.md); BIRD is not needed for them.
      const felixRoutesIpip =
        live.felixDefault?.programClusterRoutes === "Enabled" && !!a.tunnel.ipip && !!b.tunnel.ipip;
      const routed = v4.every((p) => {
        if (p.ipipMode !== "Never")
          return (bird || felixRoutesIpip) && felixOn(live, "ipipEnabled", ipipUsed);
        if (p.vxlanMode !== "Never")
          return felixOn(live, "vxlanEnabled", vxlanUsed) && !!a.tunnel.vxlan && !!b.tunnel.vxlan;
        return bird;
      });
      // IPv6: no IPIP; VXLAN follows the IPv6 pools (no Felix flag) and needs both nodes' IPv6 VTEPs; an
      // unencapsulated IPv6 pool is routed by BIRD.
      const routed6 = v6.every((p) =>
        p.vxlanMode !== "Never" ? !!a.tunnel.vxlanV6 && !!b.tunnel.vxlanV6 : bird,
      );
      if (!routed) out.push(`${a.name}->${b.name}`);
      if (!routed6) out.push(`${a.name}->${b.name} (IPv6)`);
    }
  return out;
}

/** Runs plan -> first write -> converge until the plan is empty; returns the titles and the final state. */
function migrate(
  obs: ClusterObservation,
  t: Target,
): { titles: string[]; writes: Write[]; end: ClusterObservation; gaps: string[] } {
  const titles: string[] = [];
  const writes: Write[] = [];
  const gaps: string[] = [];
  for (let i = 0; i < 10; i++) {
    const p = plan(obs, t);
    if (!p.ok) throw new Error(p.reason);
    const step = p.steps[0];
    if (!step) return { titles, writes, end: obs, gaps };
    titles.push(step.title);
    if (step.write) writes.push(step.write);
    obs = converge(step.write ? applyWrite(obs, step.write) : obs);
    for (const gap of pairsWithoutRoute(obs)) gaps.push(`after "${step.title}": ${gap}`);
  }
  throw new Error(`no end after 10 steps: ${titles.join(" | ")}`);
}

describe("calico_encap_migrate planner", () => {
  for (const version of ["v3.32.1", "v3.22.5"])
    for (const felix of ["explicit", "unset"] as const) {
      if (felix === "unset" && version === "v3.22.5") continue; // before 3.23 an unset flag is off: not a running cluster
      for (const fromE of ENCAPS)
        for (const fromB of BACKENDS)
          for (const toE of ENCAPS)
            for (const toB of BACKENDS) {
              if (!runnable(fromE, fromB)) continue;
              const title = `${version} Felix ${felix}: ${fromE}/${fromB} -> ${toE}/${toB}`;
              it(title, () => {
                const from = start(fromE, fromB, felix, version);
                expect(pairsWithoutRoute(from), "the start is routed").to.deep.equal([]);
                const t = target(toE, toB);
                const first = plan(from, t);
                if (!runnable(toE, toB)) {
                  expect(first.ok).to.equal(false);
                  if (!first.ok) expect(first.reason).to.match(/runs no BIRD/);
                  return;
                }
                const { titles, end, gaps } = migrate(from, t);
                expect(gaps, titles.join(" | ")).to.deep.equal([]);
                expect(end.live.pools[0]).to.deep.include(modes(toE));
                expect(end.live.configMapBackend).to.equal(toB);
                const again = plan(end, t);
                expect(again.ok && again.steps.length, "a second run has nothing to do").to.equal(
                  0,
                );
                if (fromE === toE && fromB === toB) expect(titles).to.deep.equal([]);
              });
            }
    }

  describe("with tunnel_pool_cidr: a Tunnel-only VXLAN pool before any pool moves into VXLAN", () => {
    const CIDR = "172.30.0.0/24";
    const TUNNEL = "default-pool-vxlan-tunnel";
    for (const fromE of ENCAPS)
      for (const fromB of BACKENDS)
        for (const toE of ENCAPS)
          for (const toB of BACKENDS) {
            if (!runnable(fromE, fromB) || !runnable(toE, toB)) continue;
            it(`${fromE}/${fromB} -> ${toE}/${toB}`, () => {
              const from = start(fromE, fromB, "explicit");
              const t = { ...target(toE, toB), tunnelPoolCidr: CIDR };
              const { titles, end, gaps } = migrate(from, t);
              expect(gaps, titles.join(" | ")).to.deep.equal([]);
              expect(end.live.pools[0]).to.deep.include(modes(toE));
              const entersVxlan = !fromE.startsWith("VXLAN") && toE.startsWith("VXLAN");
              const created = titles.findIndex((x) => x.startsWith(`Create IPPool ${TUNNEL}`));
              const switched = titles.findIndex((x) => x.startsWith("Switch IPPool default-pool "));
              if (entersVxlan) {
                expect(created, titles.join(" | ")).to.be.within(0, switched - 1);
                const vteps = end.nodes.map((n) => n.tunnel.vxlan);
                expect(vteps.every((a) => a?.startsWith("172.30.0."))).to.equal(true);
              } else expect(created, titles.join(" | ")).to.equal(-1);
              const again = plan(end, t);
              expect(again.ok && again.steps.length, "a second run has nothing to do").to.equal(0);
            });
          }

    it("keeps the tunnel pool there and back: VXLAN -> IPIP -> VXLAN creates it once, and the check never counts it", () => {
      const cidr = { tunnelPoolCidr: CIDR };
      const there = migrate(start("IPIP Always", "bird", "explicit"), {
        ...target("VXLAN Always", "vxlan"),
        ...cidr,
      });
      const back = migrate(there.end, { ...target("IPIP Always", "bird"), ...cidr });
      expect(back.gaps).to.deep.equal([]);
      expect(back.end.live.pools.map((p) => p.name)).to.deep.equal(["default-pool", TUNNEL]);
      expect(
        back.end.nodes.map((n) => n.tunnel.vxlan),
        "the VTEPs stay",
      ).to.deep.equal(there.end.nodes.map((n) => n.tunnel.vxlan));
      const again = migrate(back.end, { ...target("VXLAN Always", "vxlan"), ...cidr });
      expect(again.titles.filter((x) => x.startsWith("Create"))).to.deep.equal([]);
      const report = checkPools(inventory({}), back.end.live);
      expect(report.findings.filter((f) => JSON.stringify(f).includes(TUNNEL))).to.deep.equal([]);
    });

    it("refuses, before any write, a CIDR that is not IPv4, overlaps a pool, is too small, or a pool in the way", () => {
      const from = start("IPIP Always", "bird", "explicit");
      const reason = (cidr: string, obs = from): string => {
        const p = plan(obs, { ...target("VXLAN Always", "vxlan"), tunnelPoolCidr: cidr });
        return p.ok ? "planned" : p.reason;
      };
      expect(reason("fd00::/120")).to.match(/^tunnel_pool_cidr fd00::\/120 is IPv6/);
      expect(reason("172.30.0.0")).to.match(/is not a CIDR/);
      expect(reason("10.233.100.0/24")).to.match(
        /overlaps IPPool default-pool \(10\.233\.64\.0\/18\)/,
      );
      expect(reason("172.30.0.0/30")).to.match(
        /holds 4 addresses, but the 3 nodes need one each plus 2 spare/,
      );
      expect(reason("172.30.0.0/29")).to.equal("planned");
      const kubespray = {
        ...target("VXLAN Always", "vxlan"),
        clusterCidrs: [
          { variable: "kube_pods_subnet", cidr: "10.233.64.0/18" },
          { variable: "kube_service_addresses", cidr: "10.233.0.0/18" },
        ],
      };
      const refusedBy = (cidr: string, obs = from): string => {
        const p = plan(obs, { ...kubespray, tunnelPoolCidr: cidr });
        return p.ok ? "planned" : p.reason;
      };
      expect(refusedBy("10.233.1.0/24")).to.equal(
        "tunnel_pool_cidr 10.233.1.0/24 overlaps kube_service_addresses 10.233.0.0/18: give a network the cluster does not use.",
      );
      const withAddresses = {
        ...from,
        nodes: from.nodes.map((n, i) => ({ ...n, addresses: [`172.30.0.${11 + i}`] })),
      };
      expect(refusedBy("172.30.0.0/24", withAddresses)).to.match(
        /contains the address of node node-1 \(172\.30\.0\.11\), node-2 \(172\.30\.0\.12\), node-3/,
      );
      expect(refusedBy("172.31.0.0/24", withAddresses)).to.equal("planned");
      // Nodes on 10.0.0.0/16 (spec.bgp.ipv4Address 10.0.5.x/16): a /28 at the subnet's start holds its gateway.
      const onSubnet = {
        ...from,
        nodes: from.nodes.map((n, i) => ({
          ...n,
          addresses: [`10.0.5.${i + 1}`],
          subnets: [`10.0.5.${i + 1}/16`],
        })),
      };
      expect(refusedBy("10.0.0.0/28", onSubnet)).to.equal(
        "tunnel_pool_cidr 10.0.0.0/28 overlaps the subnet of node node-1 (10.0.5.1/16), node-2 (10.0.5.2/16), node-3 (10.0.5.3/16): a VTEP from it could take an address of that subnet, such as its gateway's, and cut the node off; give a network no node's subnet uses.",
      );
      expect(refusedBy("10.1.0.0/28", onSubnet)).to.equal("planned");
      const squatter = {
        ...from,
        live: {
          ...from.live,
          pools: [
            ...from.live.pools,
            pool({ name: TUNNEL, cidr: "172.30.0.0/24", ipipMode: "Never", vxlanMode: "Always" }),
          ],
        },
      };
      expect(reason(CIDR, squatter)).to.match(
        /IPPool default-pool-vxlan-tunnel exists but is not the tunnel pool/,
      );
    });
  });

  describe("dual-stack: the IPv6 pool beside the IPv4 one (v3.32.1, Felix explicit)", () => {
    for (const fromE of ENCAPS)
      for (const from6 of ENCAPS6)
        for (const fromB of BACKENDS)
          for (const toE of ENCAPS)
            for (const to6 of ENCAPS6)
              for (const toB of BACKENDS) {
                if (!runnable(fromE, fromB, from6)) continue;
                it(`${fromE} + IPv6 ${from6}/${fromB} -> ${toE} + IPv6 ${to6}/${toB}`, () => {
                  const from = start(fromE, fromB, "explicit", "v3.32.1", from6);
                  expect(pairsWithoutRoute(from), "the start is routed").to.deep.equal([]);
                  const t = target(toE, toB, to6);
                  if (!runnable(toE, toB, to6)) {
                    const refused = plan(from, t);
                    expect(refused.ok).to.equal(false);
                    if (!refused.ok) expect(refused.reason).to.match(/runs no BIRD/);
                    return;
                  }
                  const { titles, end, gaps } = migrate(from, t);
                  expect(gaps, titles.join(" | ")).to.deep.equal([]);
                  expect(end.live.pools.find((p) => p.name === V6_POOL)).to.deep.include(
                    modes(to6),
                  );
                  expect(end.live.configMapBackend).to.equal(toB);
                  const again = plan(end, t);
                  expect(again.ok && again.steps.length).to.equal(0);
                });
              }
  });

  it("keeps BIRD for an unencapsulated IPv6 pool: backend vxlan is refused whether or not the target names it", () => {
    const from = start("VXLAN Always", "bird", "explicit", "v3.32.1", "none");
    for (const t of [target("VXLAN Always", "vxlan"), target("VXLAN Always", "vxlan", "none")]) {
      const p = plan(from, t);
      expect(p.ok, JSON.stringify(p)).to.equal(false);
      if (!p.ok)
        expect(p.reason).to.include(`pool(s) ${V6_POOL} would use IPIP or no encapsulation`);
    }
  });

  it("the check does not call a cluster matching whose unencapsulated IPv6 pool lost BIRD", () => {
    const after = start("VXLAN Always", "vxlan", "explicit", "v3.32.1", "none").live;
    const r = checkPools(
      inventory({
        network_backend: "vxlan",
        pool_blocksize: 24,
        ipv6_stack: true,
        vxlan_mode_ipv6: "Never",
      }),
      after,
    );
    expect(r.failed).to.equal(true);
    expect(r.msg).to.not.include("matches");
    expect(r.findings.find((f) => f.id === "live.backend.needsBird")?.why).to.include(V6_POOL);
  });

  it("ipip Never / vxlan Never / backend vxlan: the planner and the check's hint both refuse", () => {
    const p = plan(start("IPIP Always", "bird", "explicit"), target("none", "vxlan"));
    expect(p.ok).to.equal(false);
    const r = checkPools(
      inventory({
        ipip_mode: "Never",
        vxlan_mode: "Never",
        network_backend: "vxlan",
        pool_blocksize: 24,
      }),
      live218(),
    );
    expect(r.migration).to.deep.include({ needed: true, possible: false });
    expect(r.findings.find((f) => f.id === "inventory.needsBird")?.severity).to.equal("blocking");
  });

  it("IPIP -> VXLAN: Felix VXLAN on, one pool write, IPIP off, backend last", () => {
    const { titles } = migrate(
      start("IPIP Always", "bird", "explicit"),
      target("VXLAN Always", "vxlan"),
    );
    expect(titles.map((t) => t.split(" ").slice(0, 3).join(" "))).to.deep.equal([
      "Enable vxlanEnabled in",
      "Switch IPPool default-pool",
      "Turn off ipipEnabled",
      "Switch calico-config to",
    ]);
  });

  it("turns an unused encapsulation off with an explicit false, the value Kubespray's next run writes", () => {
    const { writes } = migrate(
      start("IPIP Always", "bird", "explicit"),
      target("VXLAN Always", "vxlan"),
    );
    expect(writes.filter((w) => w.kind === "felix")).to.deep.equal([
      { kind: "felix", set: { vxlanEnabled: true } },
      { kind: "felix", set: { ipipEnabled: false } },
    ]);
    const back = migrate(start("VXLAN Always", "vxlan", "explicit"), target("IPIP Always", "bird"));
    expect(back.writes.filter((w) => w.kind === "felix")).to.deep.equal([
      { kind: "felix", set: { ipipEnabled: true } },
      { kind: "felix", set: { vxlanEnabled: false } },
    ]);
  });

  it("VXLAN/vxlan -> IPIP: every node at once, backend bird, then Felix IPIP, the pool, and maxUnavailable back", () => {
    const { titles } = migrate(
      start("VXLAN Always", "vxlan", "explicit"),
      target("IPIP Always", "bird"),
    );
    expect(titles[0]).to.match(
      /roll on every node at once \(DaemonSet maxUnavailable 100%, was 20%\)/,
    );
    expect(titles[1]).to.match(/backend bird/);
    expect(titles[2]).to.match(/Enable ipipEnabled/);
    expect(titles[3]).to.match(/Switch IPPool default-pool to ipipMode Always/);
    expect(titles.at(-1)).to.equal("Restore the calico-node DaemonSet's maxUnavailable to 20%");
  });

  it("VXLAN/vxlan -> VXLAN/bird: the backend switch, last, rolls on every node at once too", () => {
    // Measured in the lab's tour (test/integration/transitions.test.ts): rolled one node at a time, the first BIRD
    // pod never established a session with its peers, stayed unready for the whole 120 s wait and rolled back.
    const { titles } = migrate(
      start("VXLAN Always", "vxlan", "explicit"),
      target("VXLAN Always", "bird"),
    );
    expect(titles).to.have.length(3);
    expect(titles[0]).to.match(
      /roll on every node at once \(DaemonSet maxUnavailable 100%, was 20%\)/,
    );
    expect(titles[1]).to.equal("Switch calico-config to backend bird and roll calico-node");
    expect(titles[2]).to.equal("Restore the calico-node DaemonSet's maxUnavailable to 20%");
  });

  it("rolls a switch to BIRD on every node at once only when the DaemonSet rolls fewer at a time", () => {
    const from = start("VXLAN Always", "vxlan", "explicit");
    const kinds = (maxUnavailable: number | string | null | undefined, desired = 3) => {
      const p = plan(
        { ...from, rollout: { ...from.rollout, maxUnavailable, desired } },
        target("IPIP Always", "bird"),
      );
      return p.ok ? p.steps.map((s) => s.write?.kind) : p.reason;
    };
    expect(kinds("20%")[0]).to.equal("rollout");
    expect(kinds(null)[0], "unset is Kubernetes' default, 1").to.equal("rollout");
    expect(kinds(2)[0]).to.equal("rollout");
    expect(kinds(3)).to.not.include("rollout");
    expect(kinds("100%")).to.not.include("rollout");
    expect(kinds("67%"), "rounded up, as the controller does: 3 of 3").to.not.include("rollout");
    expect(kinds("34%")[0], "2 of 3").to.equal("rollout");
    expect(kinds("20%", 1), "one node").to.not.include("rollout");
    expect(kinds(undefined), "OnDelete or not read: left alone").to.not.include("rollout");
    // Towards VXLAN, no BIRD pod waits for peers: the DaemonSet rolls as it is.
    const p = plan(from, target("VXLAN CrossSubnet", "vxlan"));
    expect(p.ok && p.steps.map((s) => s.write?.kind)).to.not.include("rollout");
  });

  it("puts back the maxUnavailable a killed run kept in the annotation, last, and writes it as it was", () => {
    const to = start("IPIP Always", "bird", "explicit");
    const killed = {
      ...to,
      rollout: { ...to.rollout, maxUnavailable: "100%", heldMaxUnavailable: null },
    };
    const p = plan(killed, target("IPIP Always", "bird"));
    expect(p.ok && p.steps.map((s) => s.write)).to.deep.equal([
      { kind: "rollout", from: "100%", maxUnavailable: null, hold: false },
    ]);
    expect(p.ok && p.steps[0]?.title).to.equal(
      "Restore the calico-node DaemonSet's maxUnavailable to unset (1)",
    );
    // A rollback from there to VXLAN switches the backend first, then restores it.
    const back = plan(killed, target("VXLAN Always", "vxlan"));
    expect(back.ok && back.steps.map((s) => s.write?.kind).slice(-2)).to.deep.equal([
      "backend",
      "rollout",
    ]);
  });

  it("finishes a backend switch interrupted between calico-config and the pod template, before any pool moves", () => {
    const from = start("VXLAN Always", "vxlan", "explicit");
    // calico-config already says bird; the template (and so the pods) still run vxlan.
    const half = { ...from, live: { ...from.live, configMapBackend: "bird" } };
    const p = plan(half, target("IPIP Always", "bird"));
    expect(p.ok && p.steps.map((s) => s.write?.kind)).to.deep.equal([
      "rollout",
      "backend",
      "felix",
      "pool",
      "felix",
      "rollout",
    ]);
    expect(p.ok && p.steps[1]?.write).to.deep.include({ kind: "backend", backend: "bird" });
    const back = plan(half, target("VXLAN Always", "vxlan"));
    expect(back.ok && back.steps.map((s) => s.write?.kind)).to.deep.equal(["backend"]);
  });

  it("waits first when a node has not converged, writing nothing", () => {
    const from = start("IPIP Always", "bird", "explicit");
    const stuck = {
      ...from,
      nodes: from.nodes.map((n, i) => (i === 1 ? { ...n, calicoNodeReady: false } : n)),
    };
    const p = plan(stuck, target("VXLAN Always", "vxlan"));
    expect(p.ok && p.steps[0]).to.deep.include({ write: null });
    expect(p.ok && p.steps[0]?.title).to.include("calico-node not ready on node-2");
  });

  it("refuses IPIP on an IPv6 pool and both encapsulations on one pool, in Calico's words", () => {
    const dual = start("VXLAN Always", "vxlan", "explicit");
    dual.live.pools.push(
      pool({
        name: "default-pool-ipv6",
        cidr: "fd85::/112",
        ipVersion: 6,
        blockSize: 122,
        ipipMode: "Never",
        vxlanMode: "Always",
      }),
    );
    const v6 = plan(dual, {
      pools: [{ name: "default-pool-ipv6", ipipMode: "Always", vxlanMode: "Never" }],
      backend: "bird",
    });
    expect(!v6.ok && v6.reason).to.include("IPIP is not supported on an IPv6 IP pool");
    const both = plan(dual, {
      pools: [{ name: "default-pool", ipipMode: "Always", vxlanMode: "Always" }],
      backend: "bird",
    });
    expect(!both.ok && both.reason).to.include(
      "Cannot enable both VXLAN and IPIP on the same IPPool",
    );
  });

  it("refuses a pool that does not exist, and a Felix env override that would keep the target off", () => {
    const from = start("IPIP Always", "bird", "explicit");
    const missing = plan(from, {
      pools: [{ name: "nope", ipipMode: "Never", vxlanMode: "Always" }],
      backend: "bird",
    });
    expect(!missing.ok && missing.reason).to.include("IPPool nope does not exist");
    const env = {
      ...from,
      live: { ...from.live, nodeEnv: { backendFromConfigMap: true, vxlanEnabled: "false" } },
    };
    const p = plan(env, target("VXLAN Always", "vxlan"));
    expect(!p.ok && p.reason).to.include("FELIX_VXLANENABLED=false");
  });

  it("switches the IPv6 pool's VXLAN with the IPv4 pool untouched", () => {
    const from = start("VXLAN Always", "vxlan", "explicit");
    const v6: Pool = pool({
      name: "default-pool-ipv6",
      cidr: "fd85::/112",
      ipVersion: 6,
      blockSize: 122,
      ipipMode: "Never",
      vxlanMode: "Never",
    });
    from.live.pools.push(v6);
    const p = plan(from, {
      pools: [{ name: "default-pool-ipv6", ipipMode: "Never", vxlanMode: "Always" }],
      backend: "vxlan",
    });
    expect(p.ok && p.steps.map((s) => s.write?.kind)).to.deep.equal(["pool"]);
  });
});

describe("Calico >= 3.31 with a tunnel pool: Felix programs the routes through the switch (programClusterRoutes)", () => {
  const VXLAN_CIDR = "172.30.0.0/24";
  const IPIP_CIDR = "172.30.1.0/24";
  const writesOf = (w: readonly Write[], kind: Write["kind"]) => w.filter((x) => x.kind === kind);

  it("IPIP -> VXLAN: one Felix write (programClusterRoutes Enabled, both flags explicitly on), the VTEPs, the switch, then programClusterRoutes unset with IPIP off in one write, the backend last", () => {
    const from = start("IPIP Always", "bird", "unset", "v3.31.0");
    const t = { ...target("VXLAN Always", "vxlan"), tunnelPoolCidr: VXLAN_CIDR };
    const first = plan(from, t);
    expect(first.ok && first.routes.felix).to.equal(true);
    const { titles, writes, end, gaps } = migrate(from, t);
    expect(gaps, titles.join(" | ")).to.deep.equal([]);
    expect(writes.map((w) => w.kind)).to.deep.equal([
      "felix",
      "tunnelPool",
      "pool",
      "felix",
      "backend",
    ]);
    expect(writes[0]).to.deep.equal({
      kind: "felix",
      set: { ipipEnabled: true, vxlanEnabled: true, programClusterRoutes: "Enabled" },
    });
    expect(writes[1]).to.deep.include({ encap: "vxlan", pool: "default-pool-vxlan-tunnel" });
    expect(writes[3]).to.deep.equal({
      kind: "felix",
      set: { ipipEnabled: false, programClusterRoutes: null },
    });
    expect(end.live.felixDefault).to.deep.equal({ ipipEnabled: false, vxlanEnabled: true });
    const again = plan(end, t);
    expect(again.ok && again.steps.length, "a second run has nothing to do").to.equal(0);
  });

  it("VXLAN -> IPIP: backend bird first, then programClusterRoutes Enabled with ipipEnabled, every node's IPIP tunnel address from the Tunnel-only IPIP pool, the switch; programClusterRoutes stays", () => {
    const from = start("VXLAN Always", "vxlan", "explicit", "v3.31.0");
    const t = { ...target("IPIP Always", "bird"), ipipTunnelPoolCidr: IPIP_CIDR };
    const { titles, writes, end, gaps } = migrate(from, t);
    expect(gaps, titles.join(" | ")).to.deep.equal([]);
    const kinds = writes.map((w) => w.kind);
    expect(kinds.indexOf("backend"), titles.join(" | ")).to.be.below(kinds.indexOf("felix"));
    expect(writesOf(writes, "felix")[0]).to.deep.equal({
      kind: "felix",
      set: { ipipEnabled: true, programClusterRoutes: "Enabled" },
    });
    const created = writes.findIndex((w) => w.kind === "tunnelPool");
    expect(writes[created]).to.deep.include({
      encap: "ipip",
      pool: "default-pool-ipip-tunnel",
      cidr: IPIP_CIDR,
    });
    expect(created).to.be.below(kinds.indexOf("pool"));
    expect(end.live.pools.find((p) => p.name === "default-pool-ipip-tunnel")).to.deep.include({
      ipipMode: "Always",
      vxlanMode: "Never",
      allowedUses: ["Tunnel"],
      blockSize: 32,
    });
    expect(end.nodes.map((n) => n.tunnel.ipip)).to.deep.equal([
      "172.30.1.1",
      "172.30.1.2",
      "172.30.1.3",
    ]);
    expect(end.live.felixDefault).to.deep.include({
      ipipEnabled: true,
      vxlanEnabled: false,
      programClusterRoutes: "Enabled",
    });
    const again = plan(end, t);
    expect(again.ok && again.steps.length, "a second run has nothing to do").to.equal(0);
    const report = checkPools(inventory({}), end.live);
    expect(
      report.findings.filter((f) => f.id === "felix.programClusterRoutes"),
      "not a finding while an IPIP pool needs it",
    ).to.deep.equal([]);
  });

  it("VXLAN -> IPIP -> VXLAN -> IPIP on Felix's path: the way back into VXLAN (backend vxlan) is not refused for the Tunnel-only IPIP pool, which needs no BIRD, and each way reuses the tunnel pools the last left", () => {
    const vxlanTarget = { ...target("VXLAN Always", "vxlan"), tunnelPoolCidr: VXLAN_CIDR };
    const ipipTarget = { ...target("IPIP Always", "bird"), ipipTunnelPoolCidr: IPIP_CIDR };
    const out = migrate(start("VXLAN Always", "vxlan", "explicit", "v3.31.0"), ipipTarget);
    const back = plan(out.end, vxlanTarget);
    expect(back.ok ? "" : back.reason, "the way back into VXLAN").to.equal("");
    expect(back.ok && back.routes.felix).to.equal(true);
    const home = migrate(out.end, vxlanTarget);
    expect(home.gaps, home.titles.join(" | ")).to.deep.equal([]);
    expect(home.writes.map((w) => w.kind)).to.deep.equal([
      "felix",
      "tunnelPool",
      "pool",
      "felix",
      "backend",
    ]);
    expect(home.end.live.configMapBackend).to.equal("vxlan");
    expect(home.end.live.felixDefault).to.deep.equal({ ipipEnabled: false, vxlanEnabled: true });
    expect(home.end.live.pools.map((p) => p.name)).to.include("default-pool-ipip-tunnel");
    const rest = plan(home.end, vxlanTarget);
    expect(rest.ok && rest.steps, "a second run has nothing to do").to.deep.equal([]);
    // The check on Kubespray's VXLAN inventory: the Tunnel-only IPIP pool strands nothing.
    const report = checkPools(
      inventory({ ipip_mode: "Never", vxlan_mode: "Always", network_backend: "vxlan" }),
      home.end.live,
    );
    expect(
      report.findings.filter((f) => /needsBird|backend/.test(f.id)),
      JSON.stringify(report.findings),
    ).to.deep.equal([]);
    // And out again: both tunnel pools exist, none is created.
    const again = migrate(home.end, ipipTarget);
    expect(again.gaps, again.titles.join(" | ")).to.deep.equal([]);
    expect(writesOf(again.writes, "tunnelPool")).to.deep.equal([]);
    expect(again.end.live.felixDefault).to.deep.include({ programClusterRoutes: "Enabled" });
  });

  it("the check warns (a warning, not blocking) when programClusterRoutes is left on with no IPIP pool", () => {
    const vxlan = start("VXLAN Always", "vxlan", "explicit", "v3.31.0");
    const live = {
      ...vxlan.live,
      felixDefault: { ...vxlan.live.felixDefault, programClusterRoutes: "Enabled" as const },
    };
    const report = checkPools(
      inventory({ ipip_mode: "Never", vxlan_mode: "Always", network_backend: "vxlan" }),
      live,
    );
    const f = report.findings.find((x) => x.id === "felix.programClusterRoutes");
    expect(f, JSON.stringify(report.findings)).to.deep.include({
      severity: "warning",
      field: "spec.programClusterRoutes",
      live: "Enabled",
    });
    expect(f?.why).to.match(/no IPIP pool needs it/);
  });

  it("a run resumed after the switch into VXLAN finishes the Felix write: programClusterRoutes unset, IPIP off", () => {
    const from = start("IPIP Always", "bird", "explicit", "v3.31.0");
    const t = { ...target("VXLAN Always", "vxlan"), tunnelPoolCidr: VXLAN_CIDR };
    const { end } = migrate(from, t);
    const stopped = converge({
      ...end,
      live: {
        ...end.live,
        configMapBackend: "bird",
        felixDefault: { ipipEnabled: true, vxlanEnabled: true, programClusterRoutes: "Enabled" },
      },
    });
    const p = plan(stopped, t);
    expect(p.ok && p.steps.map((s) => s.write)).to.deep.equal([
      { kind: "felix", set: { ipipEnabled: false, programClusterRoutes: null } },
      { kind: "backend", from: "bird", backend: "vxlan" },
    ]);
  });

  it("on Calico v3.32, IPIP -> VXLAN takes Felix's path but leaves programClusterRoutes Enabled: BGPConfiguration programClusterRoutes may have left the cluster routes to Felix alone", () => {
    const from = start("IPIP Always", "bird", "explicit", "v3.32.1");
    const t = { ...target("VXLAN Always", "vxlan"), tunnelPoolCidr: VXLAN_CIDR };
    const first = plan(from, t);
    expect(first.ok && first.routes.felix).to.equal(true);
    expect(first.ok && first.routes.why).to.match(
      /^Felix: Calico v3\.32\.1 .*; programClusterRoutes stays Enabled afterwards \(from v3\.32 BGPConfiguration programClusterRoutes: Disabled/,
    );
    const { titles, writes, end, gaps } = migrate(from, t);
    expect(gaps, titles.join(" | ")).to.deep.equal([]);
    expect(writesOf(writes, "felix")).to.deep.equal([
      {
        kind: "felix",
        set: { vxlanEnabled: true, programClusterRoutes: "Enabled" },
      },
      { kind: "felix", set: { ipipEnabled: false } },
    ]);
    expect(end.live.felixDefault).to.deep.include({ programClusterRoutes: "Enabled" });
    const again = plan(end, t);
    expect(again.ok && again.steps.length, "a second run has nothing to do").to.equal(0);
    const report = checkPools(
      inventory({ ipip_mode: "Never", vxlan_mode: "Always", network_backend: "vxlan" }),
      end.live,
    );
    expect(
      report.findings.filter((f) => f.id === "felix.programClusterRoutes"),
      "no advice to turn it off where BGPConfiguration may depend on it",
    ).to.deep.equal([]);
  });

  it("from Calico v3.33 (programClusterRoutes with four values, Felix's by default), writes no programClusterRoutes, says why, and refuses ipip_tunnel_pool_cidr before any write", () => {
    const from = start("IPIP Always", "bird", "explicit", "v3.33.0");
    const t = { ...target("VXLAN Always", "vxlan"), tunnelPoolCidr: VXLAN_CIDR };
    const p = plan(from, t);
    expect(p.ok && p.routes).to.deep.include({ felix: false });
    expect(p.ok && p.routes.why).to.match(
      /^Calico v3\.33\.0: programClusterRoutes changed in v3\.33 \(four values; by default Felix programs the IPIP routes\), and calico-encap's Felix path is built for v3\.31 or v3\.32/,
    );
    const { writes } = migrate(from, t);
    expect(
      writes.filter((w) => w.kind === "felix" && "programClusterRoutes" in w.set),
    ).to.deep.equal([]);
    const enabled = {
      ...from,
      live: {
        ...from.live,
        felixDefault: { ...from.live.felixDefault, programClusterRoutes: "Enabled" as const },
      },
    };
    const left = migrate(enabled, t);
    expect(left.end.live.felixDefault, "an Enabled field is left as it is").to.deep.include({
      programClusterRoutes: "Enabled",
    });
    const refused = plan(start("VXLAN Always", "vxlan", "explicit", "v3.33.0"), {
      ...target("IPIP Always", "bird"),
      ipipTunnelPoolCidr: IPIP_CIDR,
    });
    expect(refused.ok ? "" : refused.reason).to.match(
      /^ipip_tunnel_pool_cidr is built for Calico v3\.31 or v3\.32 .* this cluster runs Calico v3\.33\.0, whose programClusterRoutes changed in v3\.33/,
    );
  });

  it("keeps BIRD's path, and says why, before Calico v3.31, without the direction's tunnel pool, and with no switch between IPIP and VXLAN", () => {
    const cases: [ClusterObservation, Target, RegExp][] = [
      [
        start("IPIP Always", "bird", "explicit", "v3.30.1"),
        { ...target("VXLAN Always", "vxlan"), tunnelPoolCidr: VXLAN_CIDR },
        /^BIRD: Calico v3\.30\.1 has no programClusterRoutes \(v3\.31 and later\)/,
      ],
      [
        start("IPIP Always", "bird", "explicit", "v3.31.0"),
        target("VXLAN Always", "vxlan"),
        /^BIRD: .*without tunnel_pool_cidr/,
      ],
      [
        start("VXLAN Always", "vxlan", "explicit", "v3.31.0"),
        { ...target("IPIP Always", "bird"), tunnelPoolCidr: VXLAN_CIDR },
        /^BIRD: .*without ipip_tunnel_pool_cidr/,
      ],
      [
        start("none", "bird", "explicit", "v3.31.0"),
        { ...target("VXLAN Always", "vxlan"), tunnelPoolCidr: VXLAN_CIDR },
        /^BIRD: no pool switches between IPIP and VXLAN/,
      ],
    ];
    for (const [from, t, why] of cases) {
      const p = plan(from, t);
      expect(p.ok && p.routes.why).to.match(why);
      const { writes } = migrate(from, t);
      expect(
        writes.filter((w) => w.kind === "felix" && "programClusterRoutes" in w.set),
        "no programClusterRoutes write",
      ).to.deep.equal([]);
    }
  });

  it("refuses ipip_tunnel_pool_cidr before Calico v3.31, and one that overlaps tunnel_pool_cidr, before any write", () => {
    const old = plan(start("VXLAN Always", "vxlan", "explicit", "v3.30.1"), {
      ...target("IPIP Always", "bird"),
      ipipTunnelPoolCidr: IPIP_CIDR,
    });
    expect(old.ok).to.equal(false);
    if (!old.ok)
      expect(old.reason).to.equal(
        "ipip_tunnel_pool_cidr needs Calico v3.31 or v3.32 (Felix programs the IPIP routes with programClusterRoutes), and this cluster runs Calico v3.30.1: remove the option; the switch out of VXLAN then takes BIRD's path.",
      );
    const overlap = plan(start("VXLAN Always", "vxlan", "explicit", "v3.31.0"), {
      ...target("IPIP Always", "bird"),
      tunnelPoolCidr: "172.30.0.0/16",
      ipipTunnelPoolCidr: IPIP_CIDR,
    });
    expect(overlap.ok).to.equal(false);
    if (!overlap.ok)
      expect(overlap.reason).to.equal(
        "ipip_tunnel_pool_cidr 172.30.1.0/24 overlaps tunnel_pool_cidr 172.30.0.0/16: give the two tunnel pools networks of their own.",
      );
  });
});

describe("a disabled pool still needs BIRD", () => {
  it("refuses backend vxlan while a disabled IPIP pool remains, saying it is disabled and what to do", () => {
    const from = start("IPIP Always", "bird", "explicit");
    const old = pool({ name: "old-ipip", cidr: "10.240.0.0/16", disabled: true });
    const obs = { ...from, live: { ...from.live, pools: [...from.live.pools, old] } };
    const p = plan(obs, target("VXLAN Always", "vxlan"));
    expect(p.ok).to.equal(false);
    expect(p.ok ? "" : p.reason).to.match(
      /pool\(s\) old-ipip would use IPIP or no encapsulation.* old-ipip is disabled, but its blocks keep their pods and BIRD their routes: delete it once no pod uses it/,
    );
    expect(plan(obs, target("VXLAN Always", "bird")).ok, "backend bird keeps routing it").to.equal(
      true,
    );
  });
});
