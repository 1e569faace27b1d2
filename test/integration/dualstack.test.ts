// A dual-stack cluster (Kubespray's IPv4 pool and its IPv6 pool, both VXLAN, backend vxlan) migrated to IPIP with
// BIRD for IPv4 and no encapsulation for IPv6, and back, on the real calico-node: the IPv6 pool is switched with
// the IPv4 one, the nodes' IPv6 VXLAN tunnel addresses (the real allocate-tunnel-addrs) go and come back with it,
// the real Felix routes the other nodes' IPv6 blocks through vxlan-v6.calico while the pool has VXLAN, and
// calico_pool_check with the same inventory then passes. Not measured: IPv6 traffic (the prober's pods get IPv4
// only, the lab's CNI conflist has no assign_ipv6) and IPv6 routes while the IPv6 pool is unencapsulated (the lab
// runs no bird6).

import { expect } from "chai";
import { runTask } from "../support/ansible.js";
import type { Lab } from "../support/lab.js";
import { execa } from "execa";
import { labDown, labUp, nodeAnnotations, nodesStatus, waitUntil } from "../support/lab.js";

const V6_VXLAN = "projectcalico.org/IPv6VXLANTunnelAddr";
const PREFIX = process.env.LAB_NETNS_PREFIX ?? "calab-";

/** Per node, the IPv6 block routes Felix programmed through vxlan-v6.calico (one per other node's block). */
async function v6VxlanBlockRoutes(): Promise<number[]> {
  const out: number[] = [];
  for (const node of ["node-1", "node-2", "node-3"]) {
    const r = await execa("ip", ["-n", `${PREFIX}${node}`, "-6", "route"]);
    out.push(
      r.stdout.split("\n").filter((l) => /\/122 via \S+ dev vxlan-v6\.calico/.test(l)).length,
    );
  }
  return out;
}

describe("calico_encap_migrate on a dual-stack cluster", function () {
  this.timeout(600000);
  let lab: Lab;
  before(async () => {
    lab = await labUp("dualstack", 3);
    await waitUntil("calico-node ready", () => nodesStatus(lab).summary.podsReady === 3);
  });
  after(labDown);

  const datastore = (): Record<string, unknown> => ({
    calicoctl_path: lab.calicoctlSh,
    kubectl_path: lab.kubectl,
    kubeconfig: lab.kubeconfig,
  });
  const migrate = async (target: Record<string, unknown>) =>
    (
      await runTask({
        calico_encap_migrate: {
          ...datastore(),
          wait_sleep: 1,
          wait_timeout: 120,
          ipv6_stack: true,
          ...target,
        },
      })
    ).result;
  const check = async (target: Record<string, unknown>) =>
    (await runTask({ calico_pool_check: { ...datastore(), ipv6_stack: true, ...target } })).result;
  const v6Addresses = async (): Promise<number> =>
    Object.values(await nodeAnnotations(lab)).filter((a) => a[V6_VXLAN]).length;

  const IPIP_NATIVE6 = {
    ipip_mode: "Always",
    vxlan_mode: "Never",
    network_backend: "bird",
    vxlan_mode_ipv6: "Never",
  };
  const VXLAN_BOTH = {
    ipip_mode: "Never",
    vxlan_mode: "Always",
    network_backend: "vxlan",
    vxlan_mode_ipv6: "Always",
  };

  it("starts with an IPv6 VXLAN tunnel address on every node, and IPv6 VXLAN routes to the other nodes' blocks", async () => {
    expect(await v6Addresses()).to.equal(3);
    expect(await v6VxlanBlockRoutes()).to.deep.equal([2, 2, 2]);
  });

  it("blocks ipv6_stack: false on this cluster, naming the IPv6 pool and the template's FELIX_IPV6SUPPORT", async () => {
    const c = await check({ ...VXLAN_BOTH, pool_blocksize: 26, ipv6_stack: false });
    expect(c.failed).to.equal(true);
    expect(c.msg).to.include(
      "Pod network IPv6: cluster has true, inventory (ipv6_stack) says false",
    );
    expect(c.pin_vars).to.deep.include({ ipv6_stack: true });
  });

  it("moves IPv4 to IPIP with BIRD and IPv6 to no encapsulation; the IPv6 tunnel addresses are released", async () => {
    const r = await migrate(IPIP_NATIVE6);
    expect(r.failed, r.msg).to.not.equal(true);
    expect(r.migrated_to).to.deep.equal({
      backend: "bird",
      pools: [
        { name: "default-pool", ipip_mode: "Always", vxlan_mode: "Never" },
        { name: "default-pool-ipv6", ipip_mode: "Never", vxlan_mode: "Never" },
      ],
    });
    expect(await v6Addresses()).to.equal(0);
    const c = await check({ ...IPIP_NATIVE6, pool_blocksize: 26 });
    expect(c.failed, c.msg).to.not.equal(true);
  });

  it("refuses backend vxlan while the IPv6 pool has no encapsulation (BIRD carries its routes), writing nothing", async () => {
    for (const ipv6 of [{ vxlan_mode_ipv6: "Never" }, { ipv6_stack: false }]) {
      const r = await migrate({ ...VXLAN_BOTH, ...ipv6 });
      expect(r.failed, r.msg).to.equal(true);
      expect(r.msg).to.include("Refused before any write");
      expect(r.msg).to.include("default-pool-ipv6");
    }
    const c = await check({ ...IPIP_NATIVE6, pool_blocksize: 26 });
    expect(c.failed, c.msg).to.not.equal(true);
  });

  it("and back to VXLAN on both pools with backend vxlan; every node gets its IPv6 VXLAN address again", async () => {
    const r = await migrate(VXLAN_BOTH);
    expect(r.failed, r.msg).to.not.equal(true);
    expect(r.changed).to.equal(true);
    expect(await v6Addresses()).to.equal(3);
    await waitUntil("Felix's IPv6 VXLAN routes", async () =>
      (await v6VxlanBlockRoutes()).every((n) => n === 2),
    );
    const c = await check({ ...VXLAN_BOTH, pool_blocksize: 26 });
    expect(c.failed, c.msg).to.not.equal(true);
  });

  it("leaves the IPv6 pool alone when the inventory has no IPv6 stack (no change)", async () => {
    const r = await migrate({ ...VXLAN_BOTH, ipv6_stack: false });
    expect(r.failed, r.msg).to.not.equal(true);
    expect(r.changed).to.equal(false);
  });
});
