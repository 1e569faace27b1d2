import { expect } from "chai";
import { checkPools } from "../../../src/calico/check/check.js";
import type { Backend, EncapMode } from "../../../src/calico/shared/model.js";
import { BACKENDS } from "../../../src/calico/shared/model.js";
import { inventory, live218, PINNED_218, pool } from "../../support/builders.js";

const MODE_PAIRS: [EncapMode, EncapMode][] = [
  ["Always", "Never"],
  ["CrossSubnet", "Never"],
  ["Never", "Always"],
  ["Never", "CrossSubnet"],
  ["Never", "Never"],
];

function ids(findings: { id: string; severity: string }[], severity?: string): string[] {
  return findings.filter((f) => severity === undefined || f.severity === severity).map((f) => f.id);
}

describe("calico_pool_check decision", () => {
  describe("the 2022 upgrade: a Kubespray 2.18 cluster checked with the 2.19 defaults", () => {
    const r = checkPools(inventory({ pool_blocksize: 24 }), live218());

    it("fails", () => expect(r.failed).to.equal(true));
    it("names ipipMode, vxlanMode and the backend with both values", () => {
      expect(r.msg).to.include(
        "IPPool/default-pool spec.ipipMode: cluster has Always, inventory (calico_ipip_mode) says Never",
      );
      expect(r.msg).to.include(
        "IPPool/default-pool spec.vxlanMode: cluster has Never, inventory (calico_vxlan_mode) says Always",
      );
      expect(r.msg).to.include(
        "ConfigMap kube-system/calico-config data.calico_backend: cluster has bird, inventory (calico_network_backend) says vxlan",
      );
    });
    it("says BIRD's routes vanish for the backend switch", () => {
      const backend = r.findings.find((f) => f.id === "backend");
      expect(backend?.why).to.match(/without BIRD/);
    });
    it("gives the inventory lines that keep today's behaviour", () => {
      expect(r.pin_vars).to.deep.include({
        calico_ipip_mode: "Always",
        calico_vxlan_mode: "Never",
        calico_network_backend: "bird",
        calico_pool_blocksize: 24,
        calico_pool_name: "default-pool",
      });
      expect(r.msg).to.include("calico_network_backend: bird");
    });
    it("says calico_encap_migrate can move the cluster, with its args", () => {
      expect(r.migration).to.deep.include({
        needed: true,
        possible: true,
        module: "calico_encap_migrate",
      });
      expect(r.migration.args).to.deep.include({
        ipip_mode: "Never",
        vxlan_mode: "Always",
        network_backend: "vxlan",
      });
      expect(r.migration.reason).to.not.include("without dropping traffic");
      expect(r.migration.reason).to.include(
        "window with no route between the pool write and the last node's VTEP",
      );
      expect(r.migration.reason, "it names the way to shrink the window").to.include(
        "with tunnel_pool_cidr every VTEP is allocated from a Tunnel-only pool beforehand",
      );
      expect(r.migration.tunnel_pool_cidr_applies).to.equal(true);
      expect(r.msg).to.include(
        "IPPool default-pool moves into VXLAN: add tunnel_pool_cidr (calico_encap_tunnel_pool_cidr in the role)",
      );
    });
    /** The check, with Kubespray 2.18's variables, of the cluster after a migration to VXLAN on this Calico. */
    const checkBack = (calicoVersion: string) =>
      checkPools(
        inventory(PINNED_218),
        live218({
          calicoVersion,
          pools: [pool({ ipipMode: "Never", vxlanMode: "Always", blockSize: 24 })],
          configMapBackend: "vxlan",
        }),
      );
    it("out of VXLAN before Calico v3.31, neither the hint nor the message speaks of a tunnel pool", () => {
      const back = checkBack("v3.30.1");
      expect(back.migration).to.deep.include({
        possible: true,
        tunnel_pool_cidr_applies: false,
        ipip_tunnel_pool_cidr_applies: false,
      });
      expect(back.msg).to.include("To migrate instead");
      expect(back.msg + back.migration.reason).to.not.include("tunnel_pool_cidr");
    });
    it("out of VXLAN on Calico v3.31, the hint and the message name ipip_tunnel_pool_cidr, not tunnel_pool_cidr", () => {
      const back = checkBack("v3.31.0");
      expect(back.migration).to.deep.include({
        possible: true,
        tunnel_pool_cidr_applies: false,
        ipip_tunnel_pool_cidr_applies: true,
      });
      const advice =
        "IPPool default-pool moves from VXLAN into IPIP on Calico v3.31 or v3.32: add ipip_tunnel_pool_cidr (calico_encap_ipip_tunnel_pool_cidr in the role)";
      expect(back.msg).to.include(advice);
      expect(back.migration.reason).to.include(advice);
      expect(back.msg + back.migration.reason).to.not.match(/add tunnel_pool_cidr/);
    });
    it("never reports changed", () => expect(r.changed).to.equal(false));
  });

  describe("the seed's break: the pool pinned to IP-in-IP, the backend left at v2.19's default (vxlan)", () => {
    const r = checkPools(
      inventory({ pool_blocksize: 24, ipip_mode: "Always", vxlan_mode: "Never" }),
      live218(),
    );
    const backendLines = r.msg.split("\n").filter((l) => l.includes("data.calico_backend"));

    it("blocks on the backend alone, in one line that has the cluster's value and the break", () => {
      expect(r.failed).to.equal(true);
      expect(backendLines).to.have.length(1);
      expect(backendLines[0]).to.include(
        "- ConfigMap kube-system/calico-config data.calico_backend: cluster has bird, inventory (calico_network_backend) says vxlan. ",
      );
      expect(backendLines[0]).to.match(/without BIRD.*#8691/);
      expect(r.msg).not.to.include("cluster has (unset)");
    });
    it("keeps every rule's finding in the result", () => {
      expect(ids(r.findings, "blocking")).to.include.members(["backend", "inventory.needsBird"]);
    });
    it("says the inventory's target cannot run, not that a migration cannot change the backend", () => {
      expect(r.migration.possible).to.equal(false);
      expect(r.migration.reason).to.match(
        /^The inventory asks for a configuration Calico cannot run/,
      );
      expect(r.migration.reason).to.include("Set calico_network_backend: bird");
      expect(r.migration.reason).not.to.include("a migration cannot change them");
    });
  });

  it("passes a 2.18 cluster with the pinned variables", () => {
    const r = checkPools(inventory(PINNED_218), live218());
    expect(r.failed).to.equal(false);
    expect(ids(r.findings)).to.deep.equal([]);
    expect(r.msg).to.equal("The inventory matches the live Calico configuration.");
  });

  it("passes a fresh cluster, saying Calico is not installed yet", () => {
    const r = checkPools(
      inventory(),
      live218({
        calicoInstalled: false,
        reason: "the Calico CRDs are not installed",
        pools: [],
        configMapBackend: null,
        nodeEnv: null,
      }),
    );
    expect(r.failed).to.equal(false);
    expect(r.msg).to.match(/Calico is not installed yet \(the Calico CRDs are not installed\)/);
    expect(r.pin_vars).to.deep.equal({});
  });

  it("fails a fresh cluster whose inventory Calico would reject", () => {
    const r = checkPools(
      inventory({ ipip_mode: "Always", vxlan_mode: "Always" }),
      live218({ calicoInstalled: false, pools: [], configMapBackend: null, nodeEnv: null }),
    );
    expect(r.failed).to.equal(true);
    expect(ids(r.findings, "blocking")).to.include("inventory.bothEncapsulations");
    expect(r.msg).to.include("Cannot enable both VXLAN and IPIP on the same IPPool");
  });

  it("turns blocking findings into warnings when fail_on_mismatch is false", () => {
    const r = checkPools(inventory({ pool_blocksize: 24, fail_on_mismatch: false }), live218());
    expect(r.failed).to.equal(false);
    expect(r.warnings.length).to.equal(r.findings.length);
    expect(r.warnings.join("\n")).to.include("spec.ipipMode");
  });

  describe("every combination of live and inventory modes and backends", () => {
    for (const [liveIpip, liveVxlan] of MODE_PAIRS)
      for (const liveBackend of BACKENDS)
        for (const [ipip, vxlan] of MODE_PAIRS)
          for (const backend of BACKENDS) {
            const title = `live ${liveIpip}/${liveVxlan}/${liveBackend} -> inventory ${ipip}/${vxlan}/${backend}`;
            it(title, () => {
              const live = live218({
                pools: [pool({ ipipMode: liveIpip, vxlanMode: liveVxlan })],
                felixDefault: {},
                configMapBackend: liveBackend,
              });
              const r = checkPools(
                inventory({
                  ipip_mode: ipip,
                  vxlan_mode: vxlan,
                  network_backend: backend,
                  pool_blocksize: 24,
                }),
                live,
              );
              const blocking = ids(r.findings, "blocking");
              expect(blocking.includes("pool.ipipMode"), "ipipMode finding").to.equal(
                liveIpip !== ipip,
              );
              expect(blocking.includes("pool.vxlanMode"), "vxlanMode finding").to.equal(
                liveVxlan !== vxlan,
              );
              expect(blocking.includes("backend"), "backend finding").to.equal(
                liveBackend !== backend,
              );
              // BIRD routes IPIP pools and unencapsulated pools.
              const needsBird = (i: EncapMode, v: EncapMode) => i !== "Never" || v === "Never";
              const withoutBird = needsBird(ipip, vxlan) && backend !== "bird";
              expect(blocking.includes("inventory.needsBird"), "the pool needs bird").to.equal(
                withoutBird,
              );
              const liveBroken = needsBird(liveIpip, liveVxlan) && liveBackend !== "bird";
              expect(
                blocking.includes("live.backend.needsBird"),
                "live pool without BIRD",
              ).to.equal(liveBroken);
              for (const f of r.findings.filter((x) => x.severity === "blocking"))
                expect(r.msg, `msg names ${f.id}`).to.include(`${f.object} ${f.field}`);
              const same = liveIpip === ipip && liveVxlan === vxlan && liveBackend === backend;
              expect(r.failed).to.equal(!same || liveBroken || withoutBird);
              expect(r.migration.needed).to.equal(!same);
              expect(r.migration.possible).to.equal(!same && !withoutBird);
              if (!same && withoutBird)
                expect(r.migration.reason).to.match(/data\.calico_backend|runs no BIRD/);
            });
          }
  });

  describe("pin_vars keep any live cluster as it is", () => {
    for (const [liveIpip, liveVxlan] of MODE_PAIRS)
      for (const liveBackend of BACKENDS)
        it(`live ${liveIpip}/${liveVxlan}/${liveBackend}`, () => {
          const live = live218({
            pools: [
              pool({ ipipMode: liveIpip, vxlanMode: liveVxlan, blockSize: 26, natOutgoing: false }),
            ],
            configMapBackend: liveBackend,
          });
          const first = checkPools(inventory(), live);
          const pinned = checkPools(
            inventory({
              ipip_mode: first.pin_vars.calico_ipip_mode as EncapMode,
              vxlan_mode: first.pin_vars.calico_vxlan_mode as EncapMode,
              network_backend: first.pin_vars.calico_network_backend as Backend,
              pool_blocksize: first.pin_vars.calico_pool_blocksize as number,
              pool_cidr: first.pin_vars.calico_pool_cidr as string,
              nat_outgoing: first.pin_vars.nat_outgoing as boolean,
            }),
            live,
          );
          expect(
            ids(pinned.findings).filter((id) => id.startsWith("pool.") || id === "backend"),
          ).to.deep.equal([]);
        });
  });
});
