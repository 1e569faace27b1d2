import { expect } from "chai";
import { formatHolder, leaseObject, leaseState, pidHere } from "../../../src/cluster/lease.js";
import type { Json } from "../../../src/cluster/decode.js";
import { commandsFor, daemonSetPatch } from "../../../src/cluster/write.js";
import { migrationDiff } from "../../../src/migrate/diff.js";
import { targetFromOptions } from "../../../src/calico/shared/kubespray.js";
import { bgpGoneNote, mtuWarning, summarize } from "../../../src/migrate/target.js";
import { missingTunnels } from "../../../src/calico/shared/tunnels.js";
import { inPlaceWindowWarning } from "../../../src/calico/shared/tunnel-pool.js";
import { start } from "../../support/sim-cluster.js";
import { asBackend, podsBackend } from "../../../src/calico/shared/routing.js";
import { targetOf } from "../../../src/migrate/rollback.js";
import { writeContext } from "../../support/builders.js";

const CTX = writeContext();

describe("migration writes", () => {
  it("warns of the in-place window when a pool moves into VXLAN without tunnel_pool_cidr, and only then", () => {
    const ipip = start("IPIP Always", "bird", "explicit").live.pools;
    const toVxlan = {
      pools: [{ name: "default-pool", ipipMode: "Never" as const, vxlanMode: "Always" as const }],
      backend: "vxlan" as const,
    };
    expect(inPlaceWindowWarning(ipip, toVxlan)).to.match(
      /^IPPool default-pool moves into VXLAN without tunnel_pool_cidr, and an in-place IPIP -> VXLAN switch leaves a window with no route .*3\.4-3\.8 s on the lab's real calico-node/,
    );
    expect(inPlaceWindowWarning(ipip, { ...toVxlan, tunnelPoolCidr: "172.30.0.0/24" })).to.equal(
      null,
    );
    const vxlan = start("VXLAN Always", "vxlan", "explicit").live.pools;
    expect(inPlaceWindowWarning(vxlan, toVxlan), "already VXLAN").to.equal(null);
  });

  it("does not warn of the in-place window when an earlier run's tunnel pool holds every node's VTEP", () => {
    const obs = start("IPIP Always", "bird", "explicit");
    const tunnel = {
      ...obs.live.pools[0]!,
      name: "default-pool-vxlan-tunnel",
      cidr: "172.30.0.0/24",
      blockSize: 32,
      ipipMode: "Never" as const,
      vxlanMode: "Always" as const,
      allowedUses: ["Tunnel"],
    };
    const pools = [...obs.live.pools, tunnel];
    const toVxlan = {
      pools: [{ name: "default-pool", ipipMode: "Never" as const, vxlanMode: "Always" as const }],
      backend: "vxlan" as const,
    };
    const withVteps = obs.nodes.map((n, i) => ({
      ...n,
      tunnel: { ...n.tunnel, vxlan: `172.30.0.${i + 1}` },
    }));
    expect(inPlaceWindowWarning(pools, toVxlan, withVteps)).to.equal(null);
    const oneOutside = withVteps.map((n, i) =>
      i === 0 ? { ...n, tunnel: { ...n.tunnel, vxlan: "10.233.64.1" } } : n,
    );
    expect(inPlaceWindowWarning(pools, toVxlan, oneOutside), "a VTEP outside it").to.match(
      /^IPPool default-pool moves into VXLAN without tunnel_pool_cidr/,
    );
    expect(
      inPlaceWindowWarning([...obs.live.pools, { ...tunnel, disabled: true }], toVxlan, withVteps),
      "the tunnel pool disabled",
    ).to.match(/without tunnel_pool_cidr/);
  });

  it("says, after a move from bird to vxlan, that calicoctl node status showing no BGP process is expected", () => {
    const bird = summarize(start("IPIP Always", "bird", "explicit"), ["default-pool"]);
    const vxlan = summarize(start("VXLAN Always", "vxlan", "explicit"), ["default-pool"]);
    expect(bgpGoneNote(bird, vxlan)).to.match(/calicoctl node status.*expected/);
    expect(bgpGoneNote(vxlan, bird)).to.equal(null);
    expect(bgpGoneNote(vxlan, vxlan)).to.equal(null);
  });

  it("a node's tunnel address outside every pool that gives it is moving, not settled", () => {
    const obs = start("VXLAN Always", "vxlan", "explicit");
    const node = obs.nodes[0];
    if (!node) throw new Error("no node");
    const pools = obs.live.pools;
    expect(
      missingTunnels(pools, [{ ...node, tunnel: { ...node.tunnel, vxlan: "10.233.64.1" } }]),
    ).to.deep.equal([]);
    expect(
      missingTunnels(pools, [{ ...node, tunnel: { ...node.tunnel, vxlan: "172.30.0.1" } }]),
    ).to.deep.equal(["node-1 (vxlan 172.30.0.1 moving)"]);
    expect(
      missingTunnels(pools, [{ ...node, tunnel: { ...node.tunnel, vxlan: null } }]),
    ).to.deep.equal(["node-1 (vxlan)"]);
  });

  it("switches a pool's two modes in one calicoctl patch", () => {
    const [cmd, ...rest] = commandsFor(
      {
        kind: "pool",
        pool: "default-pool",
        from: { ipipMode: "Always", vxlanMode: "Never" },
        set: { ipipMode: "Never", vxlanMode: "Always" },
      },
      CTX,
    );
    expect(rest).to.deep.equal([]);
    expect(cmd?.argv).to.deep.equal([
      "/usr/local/bin/calicoctl.sh",
      "patch",
      "ippool",
      "default-pool",
      "-p",
      '{"spec":{"ipipMode":"Never","vxlanMode":"Always"}}',
    ]);
  });

  it("creates the tunnel pool from a manifest on stdin: calicoctl create, or kubectl create of the CRD object", () => {
    const w = {
      kind: "tunnelPool" as const,
      pool: "default-pool-vxlan-tunnel",
      cidr: "172.30.0.0/24",
      nodeSelector: "all()",
      encap: "vxlan" as const,
    };
    const [cmd, ...rest] = commandsFor(w, CTX);
    expect(rest).to.deep.equal([]);
    expect(cmd?.argv).to.deep.equal(["/usr/local/bin/calicoctl.sh", "create", "-f", "-"]);
    expect(JSON.parse(cmd?.stdin ?? "null")).to.deep.equal({
      apiVersion: "projectcalico.org/v3",
      kind: "IPPool",
      metadata: { name: "default-pool-vxlan-tunnel" },
      spec: {
        cidr: "172.30.0.0/24",
        blockSize: 32,
        ipipMode: "Never",
        vxlanMode: "Always",
        natOutgoing: false,
        disableBGPExport: true,
        allowedUses: ["Tunnel"],
        nodeSelector: "all()",
      },
    });
    const [viaKubectl] = commandsFor(w, { ...CTX, client: "kubectl" });
    expect(viaKubectl?.argv.slice(-3)).to.deep.equal(["create", "-f", "-"]);
    expect(JSON.parse(viaKubectl?.stdin ?? "null")).to.deep.include({
      apiVersion: "crd.projectcalico.org/v1",
      kind: "IPPool",
    });
    const diff = migrationDiff(start("IPIP Always", "bird", "explicit"), [w]);
    expect(diff.before["IPPool/default-pool-vxlan-tunnel"]).to.deep.equal({});
    expect(diff.after["IPPool/default-pool-vxlan-tunnel"]).to.deep.include({
      cidr: "172.30.0.0/24",
      allowedUses: ["Tunnel"],
    });
  });

  it("keeps the DaemonSet's maxUnavailable in an annotation while it rolls every node at once, and puts it back", () => {
    const patchOf = (w: Parameters<typeof commandsFor>[0]): unknown => {
      const [cmd, ...rest] = commandsFor(w, CTX);
      expect(rest).to.deep.equal([]);
      expect(cmd?.argv.slice(0, 9)).to.deep.equal([
        "/usr/local/bin/kubectl",
        "--kubeconfig",
        "/etc/kubernetes/admin.conf",
        "--namespace",
        "kube-system",
        "patch",
        "daemonset",
        "calico-node",
        "--type",
      ]);
      return JSON.parse(cmd?.argv.at(-1) ?? "");
    };
    expect(
      patchOf({ kind: "rollout", from: "20%", maxUnavailable: "100%", hold: true }),
    ).to.deep.equal({
      metadata: { annotations: { "calico-encap-migrate/max-unavailable": '"20%"' } },
      spec: { updateStrategy: { rollingUpdate: { maxUnavailable: "100%" } } },
    });
    expect(
      patchOf({ kind: "rollout", from: "100%", maxUnavailable: null, hold: false }),
      "unset again: null removes the field, and the annotation",
    ).to.deep.equal({
      metadata: { annotations: { "calico-encap-migrate/max-unavailable": null } },
      spec: { updateStrategy: { rollingUpdate: { maxUnavailable: null } } },
    });
  });

  it("unsets a Felix flag with null, through a kubectl merge patch on the CRD", () => {
    const [cmd] = commandsFor(
      { kind: "felix", set: { ipipEnabled: null } },
      { ...CTX, client: "kubectl" },
    );
    expect(cmd?.argv).to.deep.equal([
      "/usr/local/bin/kubectl",
      "--kubeconfig",
      "/etc/kubernetes/admin.conf",
      "patch",
      "felixconfigurations.crd.projectcalico.org",
      "default",
      "--type",
      "merge",
      "-p",
      '{"spec":{"ipipEnabled":null}}',
    ]);
  });

  it("switches the backend in calico-config and renders calico-node as Kubespray does", () => {
    const cmds = commandsFor({ kind: "backend", from: "bird", backend: "vxlan" }, CTX);
    expect(cmds.map((c) => c.argv.slice(6, 8))).to.deep.equal([
      ["configmap", "calico-config"],
      ["daemonset", "calico-node"],
    ]);
    expect(cmds[0]?.argv.at(-1)).to.equal(
      '{"data":{"calico_backend":"vxlan","cluster_type":"kubespray"}}',
    );
    const vxlan = JSON.stringify(daemonSetPatch("vxlan", 4096, 4789));
    expect(vxlan).to.include('"command":["/bin/calico-node","-felix-ready"]');
    expect(vxlan).to.include('{"name":"FELIX_VXLANVNI","value":"4096"}');
    const bird = JSON.stringify(daemonSetPatch("bird", 4096, 4789));
    expect(bird).to.include('"command":["/bin/calico-node","-bird-ready","-felix-ready"]');
    expect(bird).to.include('{"name":"FELIX_VXLANVNI","$patch":"delete"}');
  });
});

describe("the migration lock's Lease", () => {
  const here = { host: "host-a", bootId: "boot-1", pidNamespace: "4026531836" };

  it("reads holder, renewal and duration back from the Lease it writes", () => {
    const lease = leaseObject("host-a/42/beef", Date.parse("2026-11-29T10:00:00Z"), 75) as Json;
    const s = leaseState(lease);
    expect(s.holder).to.equal("host-a/42/beef");
    expect(s.renewTime).to.equal("2026-11-29T10:00:00.000000Z");
    expect(s.durationSeconds).to.equal(75);
    expect(leaseState(leaseObject(null, 0, 1) as Json).holder).to.equal("");
  });

  it("names host, pid, nonce, boot id and PID namespace in the holder", () => {
    expect(formatHolder(here, 42, "beef")).to.equal("host-a/42/beef/boot-1/4026531836");
  });

  it("knows a holder's pid only in its own host, boot and PID namespace", () => {
    expect(pidHere("host-a/42/beef/boot-1/4026531836", here)).to.equal(42);
    // Same hostname, another PID namespace (a container with host networking): its pid means nothing here.
    expect(pidHere("host-a/42/beef/boot-1/4026532000", here)).to.equal(null);
    expect(pidHere("host-a/42/beef/boot-2/4026531836", here)).to.equal(null);
    expect(pidHere("host-b/42/beef/boot-1/4026531836", here)).to.equal(null);
    // A holder written before boot id and namespace were recorded, or with them unreadable.
    expect(pidHere("host-a/42/beef", here)).to.equal(null);
    expect(pidHere("host-a/42/beef/unknown/unknown", { ...here, bootId: "unknown" })).to.equal(
      null,
    );
  });
});

describe("migration target, diff and MTU note", () => {
  const options = {
    ipip_mode: "Never" as const,
    vxlan_mode: "Always" as const,
    network_backend: "vxlan" as const,
    pool_name: "default-pool",
    extra_pools: ["extra", "default-pool"],
    ipv6_stack: true,
    vxlan_mode_ipv6: "Always" as const,
  };

  it("names Kubespray's pool, the extra pools once, and the IPv6 pool (never IPIP)", () => {
    const t = targetFromOptions(options);
    expect(t.pools.map((p) => `${p.name} ${p.ipipMode}/${p.vxlanMode}`)).to.deep.equal([
      "default-pool Never/Always",
      "extra Never/Always",
      "default-pool-ipv6 Never/Always",
    ]);
  });

  it("shows before and after of each object a plan writes", () => {
    const obs = start("IPIP Always", "bird", "explicit");
    const d = migrationDiff(obs, [
      { kind: "felix", set: { vxlanEnabled: true } },
      {
        kind: "pool",
        pool: "default-pool",
        from: { ipipMode: "Always", vxlanMode: "Never" },
        set: { ipipMode: "Never", vxlanMode: "Always" },
      },
    ]);
    expect(d.before["IPPool/default-pool"]).to.deep.equal({
      ipipMode: "Always",
      vxlanMode: "Never",
    });
    expect(d.after["IPPool/default-pool"]).to.deep.equal({
      ipipMode: "Never",
      vxlanMode: "Always",
    });
    expect(d.after["FelixConfiguration/default"]).to.deep.equal({
      ipipEnabled: true,
      vxlanEnabled: true,
    });
  });

  it("warns about MTU only when the encapsulation changes", () => {
    const obs = start("IPIP Always", "bird", "explicit");
    const from = summarize(obs, ["default-pool"]);
    expect(mtuWarning(from, from)).to.equal(null);
    const to = {
      ...from,
      pools: [{ name: "default-pool", ipip_mode: "Never", vxlan_mode: "Always" }],
    };
    expect(mtuWarning(from, to)).to.include("VXLAN costs 50 bytes");
  });
});

describe("which backend the pods run: one answer", () => {
  it("after a switch interrupted between calico-config and the DaemonSet, the planner, the rollback target and the reported state agree", () => {
    const s = start("VXLAN Always", "bird", "explicit");
    // calico-config already says vxlan; the DaemonSet's template (the pods) still runs bird.
    const obs = {
      ...s,
      live: { ...s.live, configMapBackend: "vxlan" },
      rollout: { ...s.rollout, templateBackend: "bird" as const },
    };
    expect(podsBackend(obs)).to.equal("bird");
    expect(summarize(obs, ["default-pool"]).backend).to.equal("bird");
    expect(targetOf(obs, ["default-pool"]).backend).to.equal("bird");
  });

  it("a backend name that is none of Calico's is an error naming it, not a cast", () => {
    expect(() => asBackend("BIRD")).to.throw(
      /calico-node's backend 'BIRD' is none of bird, vxlan, none/,
    );
    expect(asBackend("vxlan")).to.equal("vxlan");
  });
});
