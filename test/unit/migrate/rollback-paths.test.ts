// Which runs roll back, and in what order (issue 37 items 5 and 6): a plan refused after the first write rolls the
// cluster back instead of leaving it half-way, and a rollback on Felix's path never turns programClusterRoutes off
// while a pool uses IPIP (Felix would delete those routes and BIRD re-add them only at its 2 s kernel scan).

import { expect } from "chai";
import type { ClusterObservation } from "../../../src/calico/shared/observation.js";
import { migrate } from "../../../src/migrate/executor.js";
import { MigrationFailed } from "../../../src/migrate/types.js";
import { start, target } from "../../support/sim-cluster.js";
import { SimIo } from "../../support/sim-io.js";
import { rejection } from "../../support/rejection.js";

const WAIT = { waitTimeoutSeconds: 60, waitSleepSeconds: 2 };
const TUNNEL = "172.30.0.0/24";
const INTO_VXLAN = { ...target("VXLAN Always", "vxlan"), tunnelPoolCidr: TUNNEL };

/** node-4 joins once the run has written, its address on the tunnel pool's network. */
function joinsOnTheTunnelNetwork(io: SimIo): (obs: ClusterObservation) => ClusterObservation {
  return (obs) =>
    io.writes.length === 0 || obs.nodes.some((n) => n.name === "node-4")
      ? obs
      : {
          ...obs,
          nodes: [
            ...obs.nodes,
            {
              name: "node-4",
              labels: { "kubernetes.io/hostname": "node-4" },
              tunnel: { ipip: null, vxlan: null, vxlanV6: null },
              calicoNodeReady: true,
              addresses: ["172.30.0.9"],
              subnets: ["172.30.0.9/24"],
            },
          ],
        };
}

describe("a plan refused after the first write", () => {
  it("rolls back to the state before the first write, saying what changed and what the rollback did", async () => {
    const io = new SimIo(start("IPIP Always", "bird", "explicit", "v3.30.1"));
    io.twist = joinsOnTheTunnelNetwork(io);
    const before = io.state.live;
    const err = await rejection<MigrationFailed>(migrate(io, INTO_VXLAN, WAIT));
    expect(err).to.be.instanceOf(MigrationFailed);
    expect(err.message).to.match(
      /^after step "Enable vxlanEnabled in FelixConfiguration default" the cluster changed and the next step is refused: tunnel_pool_cidr 172\.30\.0\.0\/24 contains the address of node node-4/,
    );
    expect(err.message).to.match(
      /rolled back to the state before the first write and verified it\.$/,
    );
    expect(err.rolledBack).to.equal(true);
    expect(err.steps.map((s) => [s.title, s.settled])).to.deep.equal([
      ["Enable vxlanEnabled in FelixConfiguration default", true],
      // The rollback's plan turns off what no pool uses, as Kubespray writes it: the state before the run.
      [
        "Turn off vxlanEnabled in FelixConfiguration default (no pool uses it; false, as Kubespray writes it)",
        true,
      ],
    ]);
    expect(io.state.live.felixDefault).to.deep.equal(before.felixDefault);
    expect(io.state.live.pools).to.deep.equal(before.pools);
  });

  it("refused before any write, it writes nothing and rolls nothing back", async () => {
    const io = new SimIo(start("IPIP Always", "bird", "explicit", "v3.30.1"));
    io.twist = (obs) => ({
      ...obs,
      nodes: [...obs.nodes.slice(0, 2), { ...obs.nodes[2]!, subnets: ["172.30.0.9/24"] }],
    });
    const err = await rejection<MigrationFailed>(migrate(io, INTO_VXLAN, WAIT));
    expect(err.message).to.match(
      /^tunnel_pool_cidr 172\.30\.0\.0\/24 overlaps the subnet of node node-3/,
    );
    expect(err.rolledBack).to.equal(false);
    expect(io.writes).to.deep.equal([]);
  });
});

describe("a rollback on Felix's path (Calico v3.31)", () => {
  it("leaves programClusterRoutes on while the pool it rolls back to uses IPIP, and says how to turn it off", async () => {
    // node-2's calico-node is not ready once the pool uses VXLAN: the pool's switch does not converge.
    const io = new SimIo(start("IPIP Always", "bird", "explicit", "v3.31.0"));
    io.twist = (obs) =>
      obs.live.pools.some((p) => p.name === "default-pool" && p.vxlanMode === "Always")
        ? {
            ...obs,
            nodes: obs.nodes.map((n) =>
              n.name === "node-2" ? { ...n, calicoNodeReady: false } : n,
            ),
          }
        : obs;
    const err = await rejection<MigrationFailed>(migrate(io, INTO_VXLAN, WAIT));
    expect(err.steps.map((s) => [s.write?.kind, s.settled])).to.deep.equal([
      ["felix", true],
      ["tunnelPool", true],
      ["pool", false],
      ["pool", true], // back to IPIP, Felix still programming the routes
      ["felix", true],
    ]);
    expect(err.steps[0]?.write).to.deep.equal({
      kind: "felix",
      set: { vxlanEnabled: true, programClusterRoutes: "Enabled" },
    });
    // The last write turns vxlanEnabled off again and leaves programClusterRoutes as it is.
    expect(err.steps[4]?.write).to.deep.equal({ kind: "felix", set: { vxlanEnabled: false } });
    expect(io.state.live.felixDefault).to.deep.include({ programClusterRoutes: "Enabled" });
    expect(err.rolledBack).to.equal(true);
    expect(err.message).to.match(
      /but for programClusterRoutes, left Enabled \(see the warning\)\.$/,
    );
    expect(err.warnings).to.have.length(1);
    expect(err.warnings[0]).to.match(
      /^The rollback left programClusterRoutes: Enabled .* pool\(s\) default-pool use IPIP, .* BIRD re-adds only at its next kernel scan .*calicoctl patch felixconfiguration default -p '\{"spec":\{"programClusterRoutes":null\}\}'\.$/,
    );
  });

  it("turns it off only once the pool is back out of IPIP (a run into IPIP that rolls back to VXLAN)", async () => {
    // node-2's calico-node is not ready while the pool uses IPIP: the switch does not converge.
    const io = new SimIo(start("VXLAN Always", "vxlan", "explicit", "v3.31.0"));
    io.twist = (obs) =>
      obs.live.pools.some((p) => p.name === "default-pool" && p.ipipMode === "Always")
        ? {
            ...obs,
            nodes: obs.nodes.map((n) =>
              n.name === "node-2" ? { ...n, calicoNodeReady: false } : n,
            ),
          }
        : obs;
    const into = { ...target("IPIP Always", "bird"), ipipTunnelPoolCidr: "172.30.1.0/24" };
    const err = await rejection<MigrationFailed>(migrate(io, into, WAIT));
    expect(err.rolledBack, err.message).to.equal(true);
    const writes = err.steps.map((s) => s.write);
    const switchedBack = writes.findIndex(
      (w, i) => i > 0 && w?.kind === "pool" && w.set.vxlanMode === "Always",
    );
    const unset = writes.findIndex(
      (w) => w?.kind === "felix" && w.set.programClusterRoutes === null,
    );
    expect(switchedBack, JSON.stringify(writes)).to.be.greaterThan(0);
    expect(unset, "programClusterRoutes unset after the pool left IPIP").to.be.greaterThan(
      switchedBack,
    );
    expect(io.state.live.felixDefault?.programClusterRoutes).to.equal(undefined);
    expect(err.warnings).to.deep.equal([]);
  });
});
