// issue 41's stop_before: pool_switch, the pure part: which write it stops before, when it is refused, and each
// Node's fallback routes from the IPAM block affinities (the lab's own kubectl output, test/fixtures/lean) and the
// Nodes' VTEPs; the executor stops there with every VTEP in place, and a run without it resumes to the end.

import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BlockAffinity } from "../../../src/calico/plan/fallback-routes.js";
import {
  fallbackRoutes,
  routesKnownAtStart,
  isPoolSwitch,
  planUntil,
  STOP_BEFORE_POOL_SWITCH,
  stopBeforeRefusal,
  stopOnBirdPath,
} from "../../../src/calico/plan/fallback-routes.js";
import { plan } from "../../../src/calico/plan/plan.js";
import type { ClusterObservation } from "../../../src/calico/shared/observation.js";
import { DatastoreError } from "../../../src/cluster/errors.js";
import { AFFINITIES_JSONPATH, parseLeanAffinities } from "../../../src/cluster/parse-lean.js";
import { migrate } from "../../../src/migrate/executor.js";
import { pool } from "../../support/builders.js";
import { FIXTURES } from "../../support/recorded.js";
import { start, target } from "../../support/sim-cluster.js";
import { SimIo } from "../../support/sim-io.js";

const TUNNEL = "172.30.0.0/24";
const INTO_VXLAN = { ...target("VXLAN Always", "vxlan"), tunnelPoolCidr: TUNNEL };
const OUT_OF_VXLAN = target("IPIP Always", "bird");
const ARGV = ["kubectl", "get", "blockaffinities.crd.projectcalico.org", "-o", "jsonpath=..."];
const RECORDED = readFileSync(
  join(FIXTURES, "..", "lean", "kubespray-2.18", "kubectl-get-blockaffinities-lean.txt"),
  "utf8",
);
const WAIT = { waitTimeoutSeconds: 60, waitSleepSeconds: 2 };

/** The sim cluster's nodes hold the lab's blocks: node-1 10.233.112.0/24 and so on. */
const AFFINITIES: BlockAffinity[] = parseLeanAffinities(ARGV, RECORDED);

/** A cluster with the VXLAN tunnel pool of TUNNEL. */
function withTunnelPool(s: ClusterObservation): ClusterObservation {
  const tunnel = pool({
    name: "default-pool-vxlan-tunnel",
    cidr: TUNNEL,
    blockSize: 32,
    ipipMode: "Never",
    vxlanMode: "Always",
    allowedUses: ["Tunnel"],
  });
  return { ...s, live: { ...s.live, pools: [...s.live.pools, tunnel] } };
}

/** A VXLAN cluster that came in with the tunnel pool, which it kept. */
function vxlanWithTunnelPool(): ClusterObservation {
  return withTunnelPool(start("VXLAN Always", "vxlan", "explicit", "v3.30.1"));
}

describe("stop_before: pool_switch (issue 41's fallback, the backend's part)", () => {
  it("reads kubectl's lean block affinities as the lab printed them, and refuses anything else naming the command", () => {
    expect(AFFINITIES).to.deep.equal([
      { node: "node-1", cidr: "10.233.112.0/24", state: "confirmed", deleted: false },
      { node: "node-2", cidr: "10.233.69.0/24", state: "confirmed", deleted: false },
      { node: "node-3", cidr: "10.233.109.0/24", state: "confirmed", deleted: false },
    ]);
    expect(AFFINITIES_JSONPATH).to.match(/^calico-encap blockaffinities/);
    for (const bad of [
      "",
      "calico-encap blockaffinities\nnode-1\t10.233.112.0/24\tconfirmed\tfalse\n",
      "calico-encap blockaffinities\nnode-1\tnot-a-cidr\tconfirmed\tfalse\nend\n",
      "calico-encap blockaffinities\nnode-1\t10.233.112.0/24\tconfirmed\nend\n",
      "calico-encap blockaffinities\nnode-1\t10.233.112.0/24\tconfirmed\tmaybe\nend\n",
    ])
      expect(() => parseLeanAffinities(ARGV, bad), JSON.stringify(bad))
        .to.throw(DatastoreError)
        .with.property("message")
        .that.includes("blockaffinities.crd.projectcalico.org");
  });

  it("stops before the write that switches a pool between IPIP and VXLAN, and no other", () => {
    const sw = (from: [string, string], to: [string, string]) =>
      isPoolSwitch({
        kind: "pool",
        pool: "p",
        from: { ipipMode: from[0], vxlanMode: from[1] } as never,
        set: { ipipMode: to[0], vxlanMode: to[1] } as never,
      });
    expect(sw(["Always", "Never"], ["Never", "Always"])).to.equal(true);
    expect(sw(["Never", "CrossSubnet"], ["CrossSubnet", "Never"])).to.equal(true);
    expect(sw(["Always", "Never"], ["CrossSubnet", "Never"])).to.equal(false);
    expect(sw(["Never", "Never"], ["Never", "Always"])).to.equal(false);
    expect(isPoolSwitch({ kind: "felix", set: { vxlanEnabled: true } })).to.equal(false);
    expect(isPoolSwitch(null)).to.equal(false);
  });

  it("planUntil alone says where a run stops: before the first pool switch, a wait before it kept; without stop_before or a switch, nowhere", () => {
    const wait = { title: "wait", write: null };
    const felix = {
      title: "felix",
      write: { kind: "felix" as const, set: { vxlanEnabled: true } },
    };
    const modes = (ipipMode: string, vxlanMode: string) => ({ ipipMode, vxlanMode }) as never;
    const switchPool = (title: string) => ({
      title,
      write: {
        kind: "pool" as const,
        pool: title,
        from: modes("Always", "Never"),
        set: modes("Never", "Always"),
      },
    });
    const steps = [wait, felix, switchPool("a"), switchPool("b")];
    expect(planUntil(steps, STOP_BEFORE_POOL_SWITCH)).to.deep.equal({
      steps: [wait, felix],
      stoppedBefore: steps[2],
    });
    expect(planUntil([wait, switchPool("a")], STOP_BEFORE_POOL_SWITCH)).to.deep.equal({
      steps: [wait],
      stoppedBefore: switchPool("a"),
    });
    expect(planUntil(steps, null)).to.deep.equal({ steps });
    expect(planUntil([wait, felix], STOP_BEFORE_POOL_SWITCH)).to.deep.equal({
      steps: [wait, felix],
    });
  });

  it("applies on BIRD's path with a VXLAN tunnel pool, and is refused on Felix's path, without one, or on etcd", () => {
    const bird = start("IPIP Always", "bird", "explicit", "v3.30.1").live;
    expect(stopBeforeRefusal(bird, INTO_VXLAN, "kdd")).to.equal(null);
    expect(stopBeforeRefusal(vxlanWithTunnelPool().live, OUT_OF_VXLAN, "kdd")).to.equal(null);
    expect(
      stopBeforeRefusal(
        start("VXLAN Always", "vxlan", "explicit", "v3.30.1").live,
        OUT_OF_VXLAN,
        "kdd",
      ),
    ).to.match(/needs every node's VTEP through IPPool default-pool's switch out of VXLAN/);
    expect(stopBeforeRefusal(bird, target("VXLAN Always", "vxlan"), "kdd")).to.match(
      /needs every node's VTEP before IPPool default-pool switches into VXLAN .*: add tunnel_pool_cidr\.$/,
    );
    const felix = start("IPIP Always", "bird", "explicit", "v3.31.0").live;
    expect(stopBeforeRefusal(felix, INTO_VXLAN, "kdd")).to.match(
      /is for BIRD's path, and this migration takes Felix's \(Felix: Calico v3\.31\.0 has programClusterRoutes/,
    );
    expect(stopBeforeRefusal(bird, INTO_VXLAN, "etcd")).to.match(/calico_datastore kdd only/);
    // No pool switches: nothing to stop before, nothing to refuse.
    expect(stopBeforeRefusal(bird, target("IPIP Always", "bird"), "etcd")).to.equal(null);
  });

  it("pool_switch_on_bird_path (migrate.yml's default) stops where pool_switch would, goes to the end elsewhere, and says why only where BIRD's path goes on without the fallback", () => {
    const bird = start("IPIP Always", "bird", "explicit", "v3.30.1").live;
    expect(stopOnBirdPath(bird, INTO_VXLAN, "kdd")).to.deep.equal({
      stop: STOP_BEFORE_POOL_SWITCH,
      warning: null,
    });
    expect(stopOnBirdPath(vxlanWithTunnelPool().live, OUT_OF_VXLAN, "kdd")).to.deep.equal({
      stop: STOP_BEFORE_POOL_SWITCH,
      warning: null,
    });
    // Felix's path: no gap, nothing said.
    const felix = start("IPIP Always", "bird", "explicit", "v3.31.0").live;
    expect(stopOnBirdPath(felix, INTO_VXLAN, "kdd")).to.deep.equal({ stop: null, warning: null });
    // Into VXLAN in place: the in-place warning names the missing tunnel pool already.
    expect(stopOnBirdPath(bird, target("VXLAN Always", "vxlan"), "kdd")).to.deep.equal({
      stop: null,
      warning: null,
    });
    // Out of VXLAN without a tunnel pool, and on etcd: BIRD's path without the fallback, said.
    const out = stopOnBirdPath(
      start("VXLAN Always", "vxlan", "explicit", "v3.30.1").live,
      OUT_OF_VXLAN,
      "kdd",
    );
    expect(out.stop).to.equal(null);
    expect(out.warning).to.match(
      /^The BIRD-path fallback \(stop_before: pool_switch_on_bird_path\) cannot cover this pool switch, which goes on without it, BIRD's path with its gap: .*only a Tunnel-only VXLAN pool keeps/,
    );
    expect(stopOnBirdPath(bird, INTO_VXLAN, "etcd").warning).to.match(/calico_datastore kdd only/);
    // No pool switch: nothing to stop before, nothing said.
    expect(stopOnBirdPath(bird, target("IPIP Always", "bird"), "kdd")).to.deep.equal({
      stop: null,
      warning: null,
    });
  });

  it("into VXLAN, the executor stops before the switch with every VTEP from the tunnel pool; a run without the stop resumes to the end", async () => {
    const from = start("IPIP Always", "bird", "explicit", "v3.30.1");
    const checked = plan(from, INTO_VXLAN);
    const check = planUntil(checked.ok ? checked.steps : [], STOP_BEFORE_POOL_SWITCH);
    const io = new SimIo(from);
    const first = await migrate(io, INTO_VXLAN, WAIT, STOP_BEFORE_POOL_SWITCH);
    expect(io.writes.map((w) => w.kind)).to.deep.equal(["felix", "tunnelPool"]);
    expect(
      first.steps.map((s) => s.title),
      "the run wrote what check mode said it would",
    ).to.deep.equal(check.steps.map((s) => s.title));
    expect(first.stoppedBefore?.title).to.equal(check.stoppedBefore?.title);
    expect(first.stoppedBefore?.write).to.deep.include({ kind: "pool", pool: "default-pool" });
    expect(first.final.live.pools[0]).to.deep.include({ ipipMode: "Always", vxlanMode: "Never" });
    expect(first.final.nodes.map((n) => n.tunnel.vxlan)).to.deep.equal([
      "172.30.0.1",
      "172.30.0.2",
      "172.30.0.3",
    ]);
    expect(io.held, "the Lease released at the stop").to.equal(null);

    const p = plan(first.final, INTO_VXLAN);
    const until = planUntil(p.ok ? p.steps : [], STOP_BEFORE_POOL_SWITCH);
    expect(until.steps, "the check's plan from the stop: nothing before the switch").to.deep.equal(
      [],
    );
    expect(until.stoppedBefore?.title).to.equal(first.stoppedBefore?.title);

    const again = await migrate(io, INTO_VXLAN, WAIT, STOP_BEFORE_POOL_SWITCH);
    expect(again.changed, "a second run with the stop writes nothing").to.equal(false);
    const rest = await migrate(io, INTO_VXLAN, WAIT);
    expect(rest.stoppedBefore).to.equal(undefined);
    expect(io.writes.map((w) => w.kind)).to.deep.equal([
      "felix",
      "tunnelPool",
      "pool",
      "felix",
      "backend",
    ]);
    expect(rest.final.live.pools[0]).to.deep.include({ ipipMode: "Never", vxlanMode: "Always" });
  });

  it("each Node's routes: every other Node's confirmed block of the target's pools via that Node's VTEP on vxlan.calico, onlink", () => {
    // At the stop into VXLAN: the tunnel pool's step gave every node its VTEP.
    const s = withTunnelPool(start("IPIP Always", "bird", "explicit", "v3.30.1"));
    const obs: ClusterObservation = {
      ...s,
      nodes: s.nodes.map((n, i) => ({ ...n, tunnel: { ...n.tunnel, vxlan: `172.30.0.${i + 1}` } })),
    };
    const more: BlockAffinity[] = [
      ...AFFINITIES,
      // Not routed: a block being released, a deleted one, another pool's, a Node Calico no longer has, IPv6.
      { node: "node-2", cidr: "10.233.70.0/24", state: "pendingDeletion", deleted: false },
      { node: "node-3", cidr: "10.233.71.0/24", state: "confirmed", deleted: true },
      { node: "node-3", cidr: "192.168.0.0/26", state: "confirmed", deleted: false },
      { node: "gone", cidr: "10.233.72.0/24", state: "confirmed", deleted: false },
      { node: "node-2", cidr: "fd85:ee78:d8a6:8607::1:0/122", state: "confirmed", deleted: false },
      // A second block of node-2's, sorted by address.
      { node: "node-2", cidr: "10.233.100.0/24", state: "confirmed", deleted: false },
    ];
    const r = fallbackRoutes(obs, more, INTO_VXLAN);
    const route = (dst: string, peer: string, via: string) => ({
      dst,
      via,
      dev: "vxlan.calico",
      onlink: true,
      peer,
    });
    expect(r).to.deep.equal({
      ok: true,
      // The CIDRs the fallback's rules are scoped to: the target's IPv4 pools alone.
      cidrs: ["10.233.64.0/18"],
      // One list for the cluster, sorted by address; each Node's table takes those of the other Nodes' blocks.
      routes: [
        route("10.233.69.0/24", "node-2", "172.30.0.2"),
        route("10.233.100.0/24", "node-2", "172.30.0.2"),
        route("10.233.109.0/24", "node-3", "172.30.0.3"),
        route("10.233.112.0/24", "node-1", "172.30.0.1"),
      ],
      nodes: ["node-1", "node-2", "node-3"],
    });
  });

  it("refuses routes through a Node without a VTEP, naming it and what to do", () => {
    const s = start("IPIP Always", "bird", "explicit", "v3.30.1");
    const r = fallbackRoutes(s, AFFINITIES, INTO_VXLAN);
    expect(r.ok).to.equal(false);
    expect(!r.ok && r.reason).to.match(
      /^Node\(s\) node-1, node-2, node-3 hold blocks of 10\.233\.64\.0\/18 but have no VXLAN tunnel address .*check that calico-node runs there/,
    );
  });

  it("refuses VTEPs outside a Tunnel-only VXLAN pool (the workload pool's, which the switch out of VXLAN takes), naming them", () => {
    const s = start("VXLAN Always", "vxlan", "explicit", "v3.30.1");
    const obs: ClusterObservation = {
      ...s,
      nodes: s.nodes.map((n, i) => ({
        ...n,
        tunnel: { ...n.tunnel, vxlan: `10.233.${64 + i}.0` },
      })),
    };
    const r = fallbackRoutes(obs, AFFINITIES, OUT_OF_VXLAN);
    expect(!r.ok && r.reason).to.match(
      /^The VXLAN tunnel address of Node\(s\) node-1 \(10\.233\.64\.0\), node-2 \(10\.233\.65\.0\), node-3 \(10\.233\.66\.0\) is in no Tunnel-only VXLAN pool \(the cluster has none\).*migrate into VXLAN with tunnel_pool_cidr first/,
    );
    // can fail: the same VTEPs inside a tunnel pool pass.
    const inPool = withTunnelPool(obs);
    const ok = fallbackRoutes(
      {
        ...inPool,
        nodes: inPool.nodes.map((n, i) => ({
          ...n,
          tunnel: { ...n.tunnel, vxlan: `172.30.0.${i + 1}` },
        })),
      },
      AFFINITIES,
      OUT_OF_VXLAN,
    );
    expect(ok.ok).to.equal(true);
  });

  it("knows the routes before the first write out of VXLAN (the VTEPs are there), not into it (the tunnel pool's step makes them)", () => {
    expect(routesKnownAtStart(vxlanWithTunnelPool().live, OUT_OF_VXLAN)).to.equal(true);
    expect(
      routesKnownAtStart(start("IPIP Always", "bird", "explicit", "v3.30.1").live, INTO_VXLAN),
    ).to.equal(false);
  });

  it("returns each block once, not once per Node: a thousand Nodes with a block each make a thousand routes", () => {
    const s = withTunnelPool(start("IPIP Always", "bird", "explicit", "v3.30.1"));
    const base = s.nodes[0];
    if (!base) throw new Error("the sim cluster has no node");
    const names = Array.from({ length: 1000 }, (_, i) => `sim-${String(i + 1).padStart(4, "0")}`);
    const obs = {
      ...s,
      nodes: names.map((name, i) => ({
        ...base,
        name,
        tunnel: { ...base.tunnel, vxlan: `172.30.0.${i & 255}` },
      })),
    };
    const blocks = names.map((node, i) => ({
      node,
      cidr: `10.233.${64 + (i >> 4)}.${(i & 15) << 4}/28`,
      state: "confirmed",
      deleted: false,
    }));
    const r = fallbackRoutes(obs, blocks, INTO_VXLAN);
    expect(r.ok, !r.ok ? r.reason : "").to.equal(true);
    if (!r.ok) return;
    expect(r.routes).to.have.length(1000);
    expect(r.nodes).to.have.length(1000);
    expect(JSON.stringify(r).length, "bytes of the result").to.be.below(200000);
  });

  it("names the first ten Nodes without a VTEP and counts the rest (a thousand nodes' refusal stays one line)", () => {
    const s = start("IPIP Always", "bird", "explicit", "v3.30.1");
    const names = Array.from({ length: 12 }, (_, i) => `sim-${String(i + 1).padStart(4, "0")}`);
    const base = s.nodes[0];
    if (!base) throw new Error("the sim cluster has no node");
    const obs = { ...s, nodes: names.map((name) => ({ ...base, name })) };
    const blocks = names.map((node, i) => ({
      node,
      cidr: `10.233.${64 + i}.0/24`,
      state: "confirmed",
      deleted: false,
    }));
    const r = fallbackRoutes(obs, blocks, INTO_VXLAN);
    expect(!r.ok && r.reason).to.match(
      /^Node\(s\) sim-0001, sim-0002, .*, sim-0010 and 2 more \(12 in all\) hold blocks of 10\.233\.64\.0\/18 but/,
    );
  });
});
