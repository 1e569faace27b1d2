// The calico-node stand-in's pure core, rule by rule (facts: ../shared/reference/calico.md and
// kubespray-calico.md). Each rule is shown holding and failing.

import { expect } from "chai";
import { ANN, effectiveEncap, stableMac } from "../../lab/standin/core.js";
import type { FelixConfiguration } from "../../lab/standin/types.js";
import { World, template } from "./standin-world.js";

const pools = (ipip: string, vxlan: string, v6 = false) => [
  { net: { v6 }, ipipMode: ipip as "Always", vxlanMode: vxlan as "Never" },
];
const fcs = (d?: FelixConfiguration["spec"], node?: FelixConfiguration["spec"]) =>
  new Map<string, FelixConfiguration>([
    ...(d ? [["default", { metadata: { name: "default" }, spec: d }] as const] : []),
    ...(node ? [["node.node-1", { metadata: { name: "node.node-1" }, spec: node }] as const] : []),
  ]);

describe("calico-node stand-in core", () => {
  describe("a. kubelet for calico-node pods: Running, Ready by the pod's own probe", () => {
    it("sets Running with the node's address at once, Ready only once Felix started and BIRD peered", () => {
      const w = new World();
      const r = w.cycle();
      expect(r.actions.filter((a) => a.kind === "podStatus")).to.have.length(3);
      const p = w.pods.find((x) => x.spec.nodeName === "node-2");
      expect(p?.status?.phase).to.equal("Running");
      expect(p?.status?.podIP).to.equal("172.31.250.12");
      expect(p?.status?.hostIP).to.equal("172.31.250.12");
      expect(w.readyPods()).to.equal(0);
      w.run(1000); // Felix up (1 s), BIRD not yet peered (1.5 s)
      expect(w.last.status.nodes["node-1"]?.felixReady).to.equal(true);
      expect(w.readyPods()).to.equal(0);
      w.run(600);
      expect(w.readyPods()).to.equal(3);
      expect(w.last.status.summary.podsReady).to.equal(3);
    });

    it("patches nothing once the status is right", () => {
      const w = new World();
      w.run(3000);
      expect(w.cycle().actions).to.deep.equal([]);
    });

    it("felix-only probe (backend vxlan): Ready once Felix started, no BIRD", () => {
      const w = new World({
        backend: "vxlan",
        ipipMode: "Never",
        vxlanMode: "Always",
        felixDefault: {},
      });
      w.run(1000);
      expect(w.readyPods()).to.equal(3);
      expect(w.last.status.nodes["node-1"]?.birdRunning).to.equal(false);
    });

    it("fails: a bird probe left in a pod started with backend vxlan never passes", () => {
      const w = new World();
      w.configMaps[0]!.data!.calico_backend = "vxlan"; // ConfigMap changed, template (probes) not
      w.restartPods();
      w.run(10000);
      expect(w.pods).to.have.length(3);
      expect(w.readyPods()).to.equal(0);
      expect(w.last.status.nodes["node-1"]?.felixReady).to.equal(true);
    });

    it("a node running BIRD turns the others' bird-ready false until they peered with it", () => {
      const w = new World();
      w.run(3000);
      w.pods.find((p) => p.spec.nodeName === "node-3")!.metadata.deletionTimestamp = "now";
      w.run(250);
      expect(w.readyPods()).to.equal(0); // node-1/2 must peer with node-3's new BIRD
      w.run(2000);
      expect(w.readyPods()).to.equal(3);
    });
  });

  describe("b. configuration read at pod start; terminating pods finalised", () => {
    it("a ConfigMap change has no effect on a running pod", () => {
      const w = new World();
      w.run(3000);
      w.configMaps[0]!.data!.calico_backend = "vxlan";
      w.run(3000);
      expect(w.last.status.nodes["node-2"]?.backend).to.equal("bird");
      expect(w.last.status.nodes["node-2"]?.birdRunning).to.equal(true);
    });

    it("a recreated pod reads the new backend", () => {
      const w = new World();
      w.run(3000);
      w.configMaps[0]!.data!.calico_backend = "vxlan";
      w.template = template("vxlan");
      w.restartPods();
      w.run(3000);
      expect(w.last.status.nodes["node-2"]?.backend).to.equal("vxlan");
      expect(w.last.status.summary.birdRunning).to.equal(0);
      expect(w.last.status.nodes["node-2"]?.podStarts).to.equal(2);
    });

    it("a literal CALICO_NETWORKING_BACKEND wins over nothing, and an unset one means bird", () => {
      const w = new World();
      w.template = {
        ...template("bird"),
        env: [{ name: "CALICO_NETWORKING_BACKEND", value: "none" }],
      };
      w.restartPods();
      w.run(500);
      expect(w.last.status.nodes["node-1"]?.backend).to.equal("none");
      w.template = { ...template("bird"), env: [] };
      w.restartPods();
      w.run(500);
      expect(w.last.status.nodes["node-1"]?.backend).to.equal("bird");
    });

    it("deletes a terminating pod with one DELETE (re-sent only after deleteRetryMs) and stops its BIRD", () => {
      const w = new World();
      w.run(3000);
      const p = w.pods.find((x) => x.spec.nodeName === "node-1")!;
      p.metadata.deletionTimestamp = "now";
      const saved = w.apply.bind(w);
      w.apply = (a) => (a.kind === "deletePod" ? undefined : saved(a)); // the DELETE is lost
      const r1 = w.cycle();
      expect(r1.actions.filter((a) => a.kind === "deletePod")).to.have.length(1);
      expect(r1.status.nodes["node-1"]?.birdRunning).to.equal(false);
      w.now += 250;
      expect(w.cycle().actions.filter((a) => a.kind === "deletePod")).to.have.length(0);
      w.now += 5000;
      expect(w.cycle().actions.filter((a) => a.kind === "deletePod")).to.have.length(1);
    });
  });

  describe("c. Felix's effective encapsulation", () => {
    it("env > node.<name> > default > pools (>= 3.23)", () => {
      const e = (env: object, d?: object, n?: object, legacy = false) =>
        effectiveEncap(env, "node-1", fcs(d, n), pools("Always", "Never"), legacy);
      expect(e({}).encap).to.deep.include({ ipip: true, vxlan: false });
      expect(e({}).source).to.deep.equal({ ipip: "pools", vxlan: "pools" });
      expect(e({}, { ipipEnabled: false }).encap.ipip).to.equal(false);
      expect(e({}, { ipipEnabled: false }, { ipipEnabled: true }).source.ipip).to.equal(
        "node.node-1",
      );
      expect(e({ ipip: false }, { ipipEnabled: true }, { ipipEnabled: true }).encap.ipip).to.equal(
        false,
      );
      expect(e({ vxlan: true }).encap.vxlan).to.equal(true);
    });

    it("pre-3.23: an unset flag is false, whatever the pools say", () => {
      const r = effectiveEncap({}, "node-1", fcs({}), pools("Never", "Always"), true);
      expect(r.encap).to.deep.include({ ipip: false, vxlan: false });
      expect(r.source.vxlan).to.equal("unset (pre-3.23: false)");
    });

    it("IPv6 VXLAN follows the IPv6 pools only; an IPv6 pool does not turn IPv4 VXLAN on", () => {
      const r = effectiveEncap({}, "node-1", fcs({}), pools("Never", "Always", true), false);
      expect(r.encap).to.deep.equal({ ipip: false, vxlan: false, vxlanV6: true });
    });

    it("reads FELIX_* env (case-insensitive) from the pod spec at start", () => {
      const w = new World({ extraEnv: [{ name: "felix_vxlanenabled", value: "true" }] });
      w.run(500);
      expect(w.last.status.nodes["node-1"]?.felixVxlan).to.equal(true);
      expect(w.last.status.nodes["node-1"]?.felixSource?.vxlan).to.equal("env");
    });

    it("restarts Felix when the effective value changes: logged, briefly not ready, programming paused", () => {
      const w = new World({ felixDefault: { ipipEnabled: true } });
      w.run(3000);
      w.pool().spec = { ...w.pool().spec, ipipMode: "Never", vxlanMode: "Always" };
      const r = w.cycle();
      expect(w.logs.join("\n")).to.include(
        "IPIP and/or VXLAN encapsulation changed, need to restart.",
      );
      expect(r.status.nodes["node-1"]?.felixRestarts).to.equal(1);
      expect(r.status.nodes["node-1"]?.felixReady).to.equal(false);
      expect(r.status.nodes["node-1"]?.vxlanDevice).to.equal(false); // paused
      expect(w.readyPods()).to.equal(0);
      w.run(1000);
      expect(w.readyPods()).to.equal(3);
      expect(w.last.status.nodes["node-1"]?.vxlanDevice).to.equal(true);
    });

    it("no restart when a change leaves the effective value alone", () => {
      const w = new World({ felixDefault: { ipipEnabled: true, vxlanEnabled: false } });
      w.run(3000);
      w.pool().spec = { ...w.pool().spec, ipipMode: "Never", vxlanMode: "Always" };
      w.run(2000);
      expect(w.last.status.nodes["node-1"]?.felixRestarts).to.equal(0);
    });
  });

  describe("d. tunnel addresses (allocate-tunnel-addrs)", () => {
    it("keeps a seeded IPIP address: no patch", () => {
      const w = new World();
      const r = w.cycle();
      expect(r.actions.filter((a) => a.kind === "nodeAnnotations")).to.deep.equal([]);
      expect(w.ann("node-2", ANN.ipip)).to.equal("10.233.65.0");
    });

    it("allocates the first address of the node's block when missing, only while calico-node runs", () => {
      const w = new World({ seedAnnotations: false });
      w.pods = [];
      w.reconcileDaemonSet = () => undefined;
      w.run(1000);
      expect(w.ann("node-3", ANN.ipip)).to.equal(undefined);
      delete (w as { reconcileDaemonSet?: unknown }).reconcileDaemonSet;
      w.reconcileDaemonSet();
      w.cycle();
      expect(w.ann("node-3", ANN.ipip)).to.equal("10.233.66.0");
    });

    it("an injected stuck allocator keeps one node without its VXLAN address while the others get theirs", () => {
      const w = new World();
      w.run(3000);
      w.faults = { stuckTunnels: ["node-3"] };
      w.pool().spec = { ...w.pool().spec, ipipMode: "Never", vxlanMode: "Always" };
      w.run(2000);
      expect(w.ann("node-2", ANN.vxlan)).to.be.a("string");
      expect(w.ann("node-3", ANN.vxlan)).to.equal(undefined);
      w.faults = {};
      w.cycle();
      expect(w.ann("node-3", ANN.vxlan)).to.be.a("string");
    });

    it("IPIP -> VXLAN in one write: releases IPIP, allocates VXLAN + a stable locally administered MAC", () => {
      const w = new World();
      w.run(3000);
      w.pool().spec = { ...w.pool().spec, ipipMode: "Never", vxlanMode: "Always" };
      w.cycle();
      expect(w.ann("node-2", ANN.ipip)).to.equal(undefined);
      expect(w.ann("node-2", ANN.vxlan)).to.equal("10.233.65.0");
      expect(w.ann("node-2", ANN.vxlanMac)).to.equal(stableMac("node-2"));
      expect(parseInt(stableMac("node-2").slice(0, 2), 16) & 3).to.equal(2);
      const patches = w.cycle().actions.filter((a) => a.kind === "nodeAnnotations");
      expect(patches).to.deep.equal([]);
    });

    it("a patch touches only the tunnel annotations", () => {
      const w = new World();
      w.pool().spec.ipipMode = "Never";
      const r = w.cycle();
      const a = r.actions.find((x) => x.kind === "nodeAnnotations");
      expect(a).to.deep.equal({
        kind: "nodeAnnotations",
        node: "node-1",
        annotations: { [ANN.ipip]: null },
      });
    });

    for (const [what, change] of [
      ["disabled", { disabled: true }],
      ["Workload-only", { allowedUses: ["Workload"] }],
      ["selecting other nodes", { nodeSelector: "kubernetes.io/hostname == 'node-9'" }],
    ] as const) {
      it(`fails: a ${what} pool gives no tunnel address (released)`, () => {
        const w = new World();
        Object.assign(w.pool().spec, change);
        w.cycle();
        expect(w.ann("node-1", ANN.ipip)).to.equal(undefined);
      });
    }

    it("nodeSelector: has(), ==, != and && select; an unsupported selector selects nothing and warns", () => {
      const w = new World();
      w.node("node-2").metadata.labels!.zone = "a";
      w.pool().spec.nodeSelector =
        "has(zone) && zone == \"a\" && kubernetes.io/hostname != 'node-1'";
      w.cycle();
      expect(w.ann("node-2", ANN.ipip)).to.equal("10.233.65.0");
      expect(w.ann("node-1", ANN.ipip)).to.equal(undefined);
      w.pool().spec.nodeSelector = "zone in {'a'}";
      const r = w.cycle();
      expect(w.ann("node-2", ANN.ipip)).to.equal(undefined);
      expect(r.status.warnings.join()).to.include("unsupported nodeSelector");
    });

    it("replaces an address outside every eligible pool", () => {
      const w = new World();
      w.node("node-1").metadata.annotations![ANN.ipip] = "192.168.0.1";
      w.cycle();
      expect(w.ann("node-1", ANN.ipip)).to.equal("10.233.64.0");
    });

    it("IPv6 VXLAN pool: IPv6VXLANTunnelAddr; IPIP never on IPv6", () => {
      const w = new World({
        backend: "vxlan",
        ipipMode: "Never",
        vxlanMode: "Always",
        felixDefault: {},
      });
      w.ipPools.push({
        metadata: { name: "default-pool-ipv6" },
        spec: {
          cidr: "fd85:ee78:d8a6:8607::1:0/112",
          blockSize: 122,
          vxlanMode: "Always",
          ipipMode: "Always",
        },
      });
      w.run(1000);
      expect(w.ann("node-2", ANN.vxlan6)).to.equal("fd85:ee78:d8a6:8607::1:40");
      expect(w.ann("node-2", ANN.vxlanMac6)).to.match(/^66:/);
      expect(w.ann("node-2", ANN.ipip)).to.equal(undefined);
      expect(w.last.status.nodes["node-2"]?.felixVxlanV6).to.equal(true);
    });
  });

  describe("e. the data plane", () => {
    it("2.18 seed: BGP routes between all nodes once peered, no vxlan.calico", () => {
      const w = new World();
      w.run(3000);
      const dp = w.last.dataplane;
      expect(dp.vxlan).to.deep.equal({ vni: 4096, port: 4789 });
      expect(dp.nodes.map((n) => n.name)).to.deep.equal(["node-1", "node-2", "node-3"]);
      const n1 = dp.nodes[0]!;
      expect(n1.block).to.equal("10.233.64.0/24");
      expect(n1.podAddresses).to.deep.equal(["10.233.64.1"]);
      expect(n1.vxlanDevice).to.equal(null);
      expect(n1.routes).to.deep.equal([
        {
          kind: "bgp",
          block: "10.233.65.0/24",
          remoteNode: "node-2",
          remoteUnderlayAddress: "172.31.250.12",
        },
        {
          kind: "bgp",
          block: "10.233.66.0/24",
          remoteNode: "node-3",
          remoteUnderlayAddress: "172.31.250.13",
        },
      ]);
    });

    it("an unencapsulated pool is routed by BIRD alone; a VXLAN pool gets no BGP route", () => {
      const w = new World();
      w.run(3000);
      w.felix.find((f) => f.metadata.name === "default")!.spec = { ipipEnabled: false };
      w.pool().spec = { ...w.pool().spec, ipipMode: "Never", vxlanMode: "Never" };
      w.run(3000);
      expect(
        w.last.dataplane.nodes[0]!.routes.map((r) => `${r.kind} ${r.remoteNode}`),
      ).to.deep.equal(["bgp node-2", "bgp node-3"]);
      w.pool().spec = { ...w.pool().spec, vxlanMode: "Always" };
      w.cycle();
      expect(w.last.dataplane.nodes[0]!.routes.filter((r) => r.kind === "bgp")).to.deep.equal([]);
    });

    it("fails: BGP routes towards a node only while BIRD runs on both ends", () => {
      const w = new World();
      w.run(3000);
      w.pods.find((p) => p.spec.nodeName === "node-3")!.metadata.deletionTimestamp = "now";
      w.reconcileDaemonSet = () => undefined;
      w.cycle();
      const n1 = w.last.dataplane.nodes[0]!;
      expect(n1.routes.map((r) => r.remoteNode)).to.deep.equal(["node-2"]);
      expect(w.last.dataplane.nodes[2]!.routes).to.deep.equal([]);
    });

    it("fails: no BGP routes with Felix IPIP off at either end (tunl0 not up)", () => {
      const w = new World();
      w.felix.push({ metadata: { name: "node.node-2" }, spec: { ipipEnabled: false } });
      w.run(3000);
      const [n1, n2] = w.last.dataplane.nodes;
      expect(n1!.routes.map((r) => r.remoteNode)).to.deep.equal(["node-3"]);
      expect(n2!.routes).to.deep.equal([]);
    });

    it("a pool switched to VXLAN, pod started with bird, vxlanEnabled unset on >= 3.23: VTEP and vxlan.calico", () => {
      const w = new World({ felixDefault: { ipipEnabled: true } });
      w.run(3000);
      w.pool().spec = { ...w.pool().spec, ipipMode: "Never", vxlanMode: "Always" };
      w.run(2000);
      const s = w.last.status.nodes["node-1"]!;
      expect(s.backend).to.equal("bird");
      expect(s.vxlanTunnelAddr).to.equal("10.233.64.0");
      expect(s.felixVxlan).to.equal(true);
      expect(s.vxlanDevice).to.equal(true);
      const n1 = w.last.dataplane.nodes[0]!;
      expect(n1.vxlanDevice).to.deep.equal({
        tunnelAddress: "10.233.64.0",
        mac: stableMac("node-1"),
      });
      expect(n1.routes).to.deep.equal([
        {
          kind: "vxlan",
          block: "10.233.65.0/24",
          remoteNode: "node-2",
          remoteTunnelAddress: "10.233.65.0",
          remoteMac: stableMac("node-2"),
          remoteUnderlayAddress: "172.31.250.12",
        },
        {
          kind: "vxlan",
          block: "10.233.66.0/24",
          remoteNode: "node-3",
          remoteTunnelAddress: "10.233.66.0",
          remoteMac: stableMac("node-3"),
          remoteUnderlayAddress: "172.31.250.13",
        },
      ]);
    });

    it("fails: the same with vxlanEnabled: false explicit gives a VTEP but no vxlan.calico and no routes", () => {
      const w = new World({ felixDefault: { ipipEnabled: true, vxlanEnabled: false } });
      w.run(3000);
      w.pool().spec = { ...w.pool().spec, ipipMode: "Never", vxlanMode: "Always" };
      w.run(2000);
      expect(w.last.status.nodes["node-1"]?.vxlanTunnelAddr).to.equal("10.233.64.0");
      expect(w.last.status.summary.vxlanDevices).to.equal(0);
      expect(w.last.dataplane.nodes.flatMap((n) => n.routes)).to.deep.equal([]);
    });

    it("fails: pre-3.23 with the flag unset: no vxlan.calico after the pool switch", () => {
      const w = new World({ calicoVersion: "v3.22.5", felixDefault: { ipipEnabled: true } });
      w.run(3000);
      w.pool().spec = { ...w.pool().spec, ipipMode: "Never", vxlanMode: "Always" };
      w.run(2000);
      expect(w.last.status.felixLegacyDefaults).to.equal(true);
      expect(w.last.status.summary.vxlanTunnelAddrs).to.equal(3);
      expect(w.last.status.summary.vxlanDevices).to.equal(0);
    });

    it("VXLAN routes only towards nodes with a VTEP (node-3's calico-node is not running: no VXLAN address)", () => {
      const w = new World({ felixDefault: { vxlanEnabled: true } });
      w.pods = w.pods.filter((p) => p.spec.nodeName !== "node-3");
      w.reconcileDaemonSet = () => undefined;
      w.pool().spec = { ...w.pool().spec, ipipMode: "Never", vxlanMode: "Always" };
      w.run(3000);
      expect(w.ann("node-3", ANN.vxlan)).to.equal(undefined);
      expect(w.ann("node-3", ANN.ipip)).to.equal("10.233.66.0"); // nothing released it either
      const n1 = w.last.dataplane.nodes[0]!;
      expect(n1.vxlanDevice).to.not.equal(null);
      expect(n1.routes.map((r) => r.remoteNode)).to.deep.equal(["node-2"]);
      expect(w.last.dataplane.nodes[2]!.vxlanDevice).to.equal(null);
    });

    it("VNI and port from FelixConfiguration; only the first LAB_DATAPLANE_NODES nodes", () => {
      const w = new World(
        { nodes: 5, felixDefault: { vxlanVNI: 4097, vxlanPort: 4790 } },
        { dataplaneNodes: 2 },
      );
      w.run(3000);
      expect(w.last.dataplane.vxlan).to.deep.equal({ vni: 4097, port: 4790 });
      expect(w.last.dataplane.nodes.map((n) => n.name)).to.deep.equal(["node-1", "node-2"]);
      expect(w.last.dataplane.nodes[0]!.routes).to.have.length(1);
      expect(Object.keys(w.last.status.nodes)).to.have.length(5);
    });

    it("vxlan.calico stays while Felix is down (pod deleted, nothing removes it)", () => {
      const w = new World({
        backend: "vxlan",
        ipipMode: "Never",
        vxlanMode: "Always",
        felixDefault: {},
      });
      w.run(2000);
      w.reconcileDaemonSet = () => undefined;
      w.restartPods();
      w.cycle();
      expect(w.last.status.summary.vxlanDevices).to.equal(3);
      expect(w.last.status.summary.pods).to.equal(0);
    });
  });

  describe("the 2022 upgrade and Kubespray's documented steps", () => {
    it("fails: calico-config -> vxlan and calico-node rolled while the pool stays IPIP: no BIRD, no VTEP, no routes", () => {
      const w = new World();
      w.run(3000);
      expect(w.last.dataplane.nodes[0]!.routes).to.have.length(2);
      w.configMaps[0]!.data!.calico_backend = "vxlan";
      w.template = template("vxlan");
      w.restartPods();
      w.run(5000);
      const s = w.last.status;
      expect(s.summary.podsReady).to.equal(3); // pods come back Ready (felix-only probe)
      expect(s.summary.birdRunning).to.equal(0);
      expect(s.summary.vxlanTunnelAddrs).to.equal(0);
      expect(s.summary.vxlanDevices).to.equal(0);
      expect(s.summary.ipipTunnelAddrs).to.equal(3);
      expect(w.last.dataplane.nodes.flatMap((n) => n.routes)).to.deep.equal([]);
    });

    it("the four manual steps: every node ends with a VXLAN address, vxlan.calico and VXLAN routes", () => {
      const w = new World();
      w.run(3000);
      w.felixDefault().vxlanEnabled = true; // 1
      w.run(2000);
      expect(w.last.status.nodes["node-1"]?.felixRestarts).to.equal(1);
      expect(w.last.status.summary.vxlanDevices).to.equal(0); // no VTEP yet
      expect(w.last.dataplane.nodes[0]!.routes.every((r) => r.kind === "bgp")).to.equal(true);
      w.pool().spec = { ...w.pool().spec, ipipMode: "Never", vxlanMode: "Always" }; // 2
      w.run(2000); // 3: wait
      expect(w.last.status.summary.vxlanTunnelAddrs).to.equal(3);
      expect(w.last.status.summary.vxlanDevices).to.equal(3);
      w.felixDefault().ipipEnabled = false; // 4
      w.run(2000);
      const s = w.last.status;
      expect(s.summary.ipipTunnelAddrs).to.equal(0);
      expect(s.nodes["node-2"]).to.deep.include({
        felixIpip: false,
        felixVxlan: true,
        birdRunning: true,
      });
      expect(s.nodes["node-2"]?.felixRestarts).to.equal(2);
      expect(w.last.dataplane.nodes[1]!.routes.map((r) => r.kind)).to.deep.equal([
        "vxlan",
        "vxlan",
      ]);
    });
  });
});
