import { expect } from "chai";
import { checkPools } from "../../../src/calico/check/check.js";
import { refusal } from "../../../src/calico/plan/plan.js";
import { finding } from "../../../src/calico/check/findings.js";
import { inventory, live218, PINNED_218, pool } from "../../support/builders.js";

/** Kubespray 2.18's IPv6 pool: no encapsulation (calico_vxlan_mode_ipv6: Never). */
const V6_POOL_UNENCAPSULATED = pool({
  name: "default-pool-ipv6",
  cidr: "fd85:ee78:d8a6:8607::1:0/112",
  ipVersion: 6,
  blockSize: 122,
  ipipMode: "Never",
  vxlanMode: "Never",
  natOutgoing: false,
});

function find(r: ReturnType<typeof checkPools>, id: string) {
  return r.findings.find((f) => f.id === id);
}

describe("calico_pool_check fields beyond the modes", () => {
  it("blocks a blockSize change (immutable), remedy keeps the live value", () => {
    const r = checkPools(inventory({ ...PINNED_218, pool_blocksize: 26 }), live218());
    const f = find(r, "pool.blockSize");
    expect(f).to.deep.include({
      live: 24,
      inventory: 26,
      severity: "blocking",
      variable: "calico_pool_blocksize",
    });
    expect(f?.why).to.include("IPPool BlockSize cannot be modified");
    expect(f?.remedy).to.include("calico_pool_blocksize: 24");
  });

  it("warns, without failing, about a blockSize the fork's Calico role keeps (Kubespray v2.22, v2.24 on)", () => {
    const r = checkPools(
      inventory({ ...PINNED_218, pool_blocksize: 26, pool_blocksize_kept: true }),
      live218(),
    );
    const f = find(r, "pool.blockSize");
    expect(f).to.deep.include({ live: 24, inventory: 26, severity: "warning" });
    expect(f?.why).to.include("keeps the live pool's blockSize");
    expect(f?.remedy).to.include("calico_pool_blocksize: 24");
    expect(r.failed).to.equal(false);
    // The IPv6 pool's the same way.
    const v6 = live218({ pools: [pool(), V6_POOL_UNENCAPSULATED] });
    const six = (kept: boolean) =>
      checkPools(
        inventory({
          ...PINNED_218,
          ipv6_stack: true,
          vxlan_mode_ipv6: "Never",
          pool_blocksize_ipv6: 120,
          pool_blocksize_kept: kept,
        }),
        v6,
      ).findings.filter((x) => x.id === "pool.blockSize");
    expect(six(true).map((x) => [x.object, x.severity])).to.deep.equal([
      ["IPPool/default-pool-ipv6", "warning"],
    ]);
    expect(six(false).map((x) => [x.object, x.severity])).to.deep.equal([
      ["IPPool/default-pool-ipv6", "blocking"],
    ]);
  });

  it("blocks a cidr change but not a different spelling of the same network", () => {
    const changed = checkPools(inventory({ ...PINNED_218, pool_cidr: "10.234.0.0/18" }), live218());
    expect(find(changed, "pool.cidr")?.severity).to.equal("blocking");
    const v6 = live218({
      pools: [
        pool(),
        pool({
          name: "default-pool-ipv6",
          cidr: "fd85:ee78:d8a6:8607::1:0/112",
          ipVersion: 6,
          blockSize: 122,
          ipipMode: "Never",
          vxlanMode: "Always",
          natOutgoing: false,
        }),
      ],
    });
    const same = checkPools(inventory({ ...PINNED_218, ipv6_stack: true }), v6);
    expect(find(same, "pool.cidr")).to.equal(undefined);
  });

  it("warns about a natOutgoing change without failing", () => {
    const r = checkPools(inventory({ ...PINNED_218, nat_outgoing: false }), live218());
    expect(find(r, "pool.natOutgoing")?.severity).to.equal("warning");
    expect(r.failed).to.equal(false);
    expect(r.warnings[0]).to.include("spec.natOutgoing");
  });

  it("warns, without failing, about the maxUnavailable an interrupted migration left held", () => {
    const held = checkPools(inventory(PINNED_218), live218({ heldMaxUnavailable: "20%" }));
    expect(held.failed).to.equal(false);
    expect(find(held, "daemonset.maxUnavailable")).to.deep.include({
      severity: "warning",
      live: "20%",
      field: "metadata.annotations.calico-encap-migrate/max-unavailable",
    });
    expect(find(held, "daemonset.maxUnavailable")?.remedy).to.include(
      "puts maxUnavailable back to 20%",
    );
    expect(find(checkPools(inventory(PINNED_218), live218()), "daemonset.maxUnavailable")).to.equal(
      undefined,
    );
  });

  describe("what Kubespray's next run would still change in FelixConfiguration default", () => {
    it("warns, without failing, when a flag is unset: Kubespray writes it explicitly, and Felix restarts", () => {
      const r = checkPools(inventory(PINNED_218), live218({ felixDefault: { ipipEnabled: true } }));
      expect(r.failed).to.equal(false);
      expect(find(r, "felix.vxlanEnabled")).to.deep.include({
        object: "FelixConfiguration/default",
        field: "spec.vxlanEnabled",
        live: null,
        inventory: false,
        variable: "calico_vxlan_mode",
        severity: "warning",
      });
      expect(find(r, "felix.vxlanEnabled")?.why).to.include("Felix restarts on every node at once");
      expect(find(r, "felix.vxlanEnabled")?.remedy).to.include(
        `calicoctl.sh patch felixconfiguration default -p '{"spec":{"vxlanEnabled":false}}'`,
      );
      expect(find(r, "felix.ipipEnabled"), "ipipEnabled is as Kubespray writes it").to.equal(
        undefined,
      );
    });
    it("an explicit flag left on after the pools left IP-in-IP is said once, with what Kubespray writes", () => {
      const r = checkPools(
        inventory({ ipip_mode: "Never", vxlan_mode: "Always", network_backend: "vxlan" }),
        live218({
          pools: [pool({ ipipMode: "Never", vxlanMode: "Always" })],
          felixDefault: { ipipEnabled: true, vxlanEnabled: true },
          configMapBackend: "vxlan",
        }),
      );
      expect(find(r, "live.felix.ipipEnabled")?.remedy).to.include(
        "Kubespray's next run writes ipipEnabled: false (calico_ipip_mode is Never), which ends it and restarts Felix",
      );
      expect(find(r, "felix.ipipEnabled"), "not a second time").to.equal(undefined);
      expect(find(r, "felix.vxlanEnabled")).to.equal(undefined);
    });
    it("warns when an explicit flag differs from what Kubespray writes", () => {
      const r = checkPools(
        inventory(PINNED_218),
        live218({ felixDefault: { ipipEnabled: true, vxlanEnabled: true } }),
      );
      expect(find(r, "live.felix.vxlanEnabled")?.remedy).to.include("writes vxlanEnabled: false");
      const unset = checkPools(
        inventory({ ...PINNED_218, vxlan_mode: "Never" }),
        live218({ felixDefault: { vxlanEnabled: false } }),
      );
      expect(find(unset, "felix.ipipEnabled")).to.deep.include({ live: null, inventory: true });
    });
    it("says nothing of a flag calico-node's env sets: Felix's resolved value does not change", () => {
      const r = checkPools(
        inventory(PINNED_218),
        live218({
          felixDefault: { ipipEnabled: true },
          nodeEnv: {
            backendFromConfigMap: true,
            datastoreType: "kubernetes",
            vxlanEnabled: "false",
          },
        }),
      );
      expect(find(r, "felix.vxlanEnabled")).to.equal(undefined);
    });
    it("says nothing on a cluster as Kubespray v2.18.2 installed it, checked with its variables", () => {
      expect(
        checkPools(inventory(PINNED_218), live218()).findings.filter((f) =>
          f.id.startsWith("felix."),
        ),
      ).to.deep.equal([]);
    });
  });

  it("compares the IPv6 pool when ipv6_stack is on", () => {
    const live = live218({
      pools: [pool(), V6_POOL_UNENCAPSULATED],
    });
    const r = checkPools(inventory({ ...PINNED_218, ipv6_stack: true }), live);
    expect(find(r, "pool.vxlanMode")).to.deep.include({
      object: "IPPool/default-pool-ipv6",
      variable: "calico_vxlan_mode_ipv6",
      live: "Never",
      inventory: "Always",
    });
    const off = checkPools(inventory({ ...PINNED_218, ipv6_stack: false }), live);
    expect(off.findings.map((f) => f.id)).to.deep.equal(["stack.ipv6"]);
  });

  it("on an IPv6-only cluster (ipv4_stack: false) the migration hint says why calico_encap_migrate cannot move it", () => {
    const live = live218({
      pools: [V6_POOL_UNENCAPSULATED],
    });
    const r = checkPools(
      inventory({ ...PINNED_218, ipv4_stack: false, ipv6_stack: true, vxlan_mode_ipv6: "Always" }),
      live,
    );
    expect(find(r, "pool.vxlanMode")).to.deep.include({ object: "IPPool/default-pool-ipv6" });
    expect(r.migration.possible).to.equal(false);
    expect(r.migration.reason).to.not.match(/IPPool\s+does not exist/);
    expect(r.migration.reason).to.match(
      /^calico_encap_migrate cannot move an IPv6-only cluster \(ipv4_stack: false\)/,
    );
    expect(r.migration.args).to.not.have.property("pool_name");
    // calico_encap_migrate itself, aimed at such a cluster, refuses with the same reason.
    expect(
      refusal(live, {
        pools: [{ name: "default-pool", ipipMode: "Never", vxlanMode: "Always" }],
        backend: "vxlan",
      }),
    ).to.match(
      /^IPPool default-pool does not exist: the cluster has IPv6 pools only \(default-pool-ipv6\), and calico_encap_migrate cannot move an IPv6-only cluster/,
    );
  });

  it("rejects IPIP on the IPv6 pool in Calico's words", () => {
    const r = checkPools(
      inventory({
        ...PINNED_218,
        ipv6_stack: true,
        ipip_mode_ipv6: "Always",
        vxlan_mode_ipv6: "Never",
      }),
      live218(),
    );
    expect(find(r, "inventory.ipipOnIpv6")?.why).to.include(
      "IPIP is not supported on an IPv6 IP pool",
    );
  });

  it("blocks a leftover Felix env override that would stop IPIP", () => {
    const r = checkPools(
      inventory(PINNED_218),
      live218({ nodeEnv: { backendFromConfigMap: true, ipipEnabled: "false" } }),
    );
    const f = find(r, "live.felix.ipipEnabled");
    expect(f?.severity).to.equal("blocking");
    expect(f?.why).to.include("FELIX_IPINIPENABLED=false");
  });

  it("warns about a leftover vxlanEnabled: true with no VXLAN pool", () => {
    const r = checkPools(
      inventory(PINNED_218),
      live218({ felixDefault: { ipipEnabled: true, vxlanEnabled: true } }),
    );
    const f = find(r, "live.felix.vxlanEnabled");
    expect(f?.severity).to.equal("warning");
    expect(f?.why).to.include("vxlan.calico");
    expect(r.failed).to.equal(false);
  });

  it("blocks another IPIP pool stranded by a switch to backend vxlan", () => {
    const live = live218({ pools: [pool(), pool({ name: "extra", cidr: "10.240.0.0/16" })] });
    const r = checkPools(inventory({ pool_blocksize: 24 }), live);
    const f = find(r, "target.backend.needsBird");
    expect(f?.severity).to.equal("blocking");
    expect(f?.why).to.include("extra");
    const felix = find(r, "target.felix.ipipEnabled");
    expect(felix?.why).to.include("extra");
    expect(felix?.variable).to.equal("calico_ipip_mode");
  });

  it("blocks when a node.* override turns VXLAN off under a VXLAN pool", () => {
    const live = live218({
      pools: [pool({ ipipMode: "Never", vxlanMode: "Always" })],
      configMapBackend: "vxlan",
      felixDefault: {},
      felixNodes: { "node-2": { vxlanEnabled: false } },
    });
    const r = checkPools(inventory({ pool_blocksize: 24 }), live);
    expect(r.findings.map((f) => `${f.id} ${f.object}`)).to.include(
      "live.felix.vxlanEnabled FelixConfiguration/node.node-2",
    );
    expect(r.cluster.felix.node_overrides).to.deep.equal(["node-2"]);
  });

  it("uses pre-3.23 semantics: unset flags are false, so an IPIP pool without ipipEnabled has no IPIP", () => {
    const r = checkPools(
      inventory(PINNED_218),
      live218({ calicoVersion: "v3.22.4", felixDefault: {} }),
    );
    expect(find(r, "live.felix.ipipEnabled")?.why).to.include("Calico < 3.23");
    const modern = checkPools(inventory(PINNED_218), live218({ felixDefault: {} }));
    expect(find(modern, "live.felix.ipipEnabled")).to.equal(undefined);
  });

  it("blocks an inventory pool name that differs from the cluster's only pool", () => {
    const r = checkPools(inventory({ ...PINNED_218, pool_name: "pods" }), live218());
    expect(find(r, "pool.name")).to.deep.include({ live: "default-pool", inventory: "pods" });
    expect(r.pin_vars.calico_pool_name).to.equal("default-pool");
  });

  it("suggests the migration and keeping the immutable blockSize when both differ", () => {
    const r = checkPools(inventory({ pool_blocksize: 26 }), live218());
    expect(r.migration).to.deep.include({ needed: true, possible: true });
    expect(r.migration.reason).to.include("keep calico_pool_blocksize: 24");
  });

  it("refuses to suggest a migration when the inventory's pool does not exist", () => {
    const r = checkPools(
      inventory({
        ...PINNED_218,
        ipip_mode: "Never",
        vxlan_mode: "Always",
        network_backend: "vxlan",
        pool_name: "pods",
      }),
      live218({ pools: [pool(), pool({ name: "other", cidr: "10.240.0.0/16" })] }),
    );
    expect(r.migration).to.deep.include({ needed: true, possible: false });
    expect(r.migration.reason).to.include("IPPool/pods metadata.name");
    expect(find(r, "pool.missing")?.severity).to.equal("blocking");
  });

  it("finding() takes named fields, so the live and the inventory value cannot be swapped", () => {
    const f = finding({
      inventory: 26,
      live: 24,
      id: "pool.blockSize",
      object: "IPPool/default-pool",
      field: "spec.blockSize",
      variable: "calico_pool_blocksize",
      severity: "blocking",
      why: "",
      remedy: "",
    });
    expect(f).to.deep.include({ live: 24, inventory: 26 });
    expect(Object.keys(f).slice(3, 5)).to.deep.equal(["live", "inventory"]);
    // Never called: tsc fails on the next line if finding() takes positional arguments again.
    // @ts-expect-error nine positional arguments are not a Finding
    const positional = () => finding("id", "o", "f", 1, 2, "v", "blocking", "w", "r");
    expect(positional).to.be.a("function");
  });
});
