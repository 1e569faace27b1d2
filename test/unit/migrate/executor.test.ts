import { expect } from "chai";
import type { Write } from "../../../src/calico/plan/plan.js";
import { LockLost, LockRefused } from "../../../src/cluster/lock.js";
import { migrate } from "../../../src/migrate/executor.js";
import { MigrationFailed } from "../../../src/migrate/types.js";
import { applyWrite, converge, start, target } from "../../support/sim-cluster.js";
import { SimIo } from "../../support/sim-io.js";
import {
  FELIX_RESTART_SECONDS,
  FELIX_TAKEOVER_SECONDS,
} from "../../../src/calico/plan/felix-restart.js";
import { rejection } from "../../support/rejection.js";

const WAIT = { waitTimeoutSeconds: 60, waitSleepSeconds: 2 };
const TO_219 = target("VXLAN Always", "vxlan");

describe("calico_encap_migrate executor", () => {
  it("moves a Kubespray 2.18 cluster to the 2.19 defaults, one write at a time, and releases the lock", async () => {
    const io = new SimIo(start("IPIP Always", "bird", "explicit"));
    const run = await migrate(io, TO_219, WAIT);
    expect(run.changed).to.equal(true);
    expect(io.writes.map((w) => w.kind)).to.deep.equal(["felix", "pool", "felix", "backend"]);
    expect(run.final.live.pools[0]).to.deep.include({ ipipMode: "Never", vxlanMode: "Always" });
    expect(run.final.live.configMapBackend).to.equal("vxlan");
    expect(run.steps.every((s) => s.seconds >= 2 * WAIT.waitSleepSeconds)).to.equal(true);
    expect(io.held).to.equal(null);
    expect(io.logs.some((l) => /3 of 3 nodes converged/.test(l))).to.equal(true);
    const progress = io.logs.filter((l) => /^step 2\/4 'Switch IPPool default-pool/.test(l));
    expect(progress.length, io.logs.join("\n")).to.be.greaterThan(1);
    expect(progress[1], progress.join("\n")).to.match(/': [0-3] of 3 nodes converged \(\d+ s\)/);
  });

  it("holds the next write for Felix's restart after a tunnel address or encapsulation change", async () => {
    const io = new SimIo(start("IPIP Always", "bird", "explicit"), 0);
    const run = await migrate(io, TO_219, { ...WAIT, waitSleepSeconds: 1 });
    const seconds = (kind: string): number[] =>
      run.steps.filter((s) => s.write?.kind === kind).map((s) => s.seconds);
    // Felix flags: from the write; the pool: from the poll that saw the new addresses (1 s after the write).
    for (const s of seconds("felix")) expect(s).to.be.at.least(FELIX_RESTART_SECONDS);
    expect(seconds("pool")[0]).to.be.at.least(1 + FELIX_RESTART_SECONDS);
    expect(seconds("backend")[0], "a rollout restarts no Felix by itself: two polls").to.equal(2);
    expect(io.logs.join("\n")).to.match(
      /Switch IPPool.*waiting for Felix restarting on node-1, node-2, node-3 after its tunnel address changed \(\d s left/,
    );
  });

  it("on Felix's path, holds the next write until Felix can have taken BIRD's routes over (FELIX_TAKEOVER_SECONDS)", async () => {
    const io = new SimIo(start("IPIP Always", "bird", "explicit"), 0);
    const run = await migrate(
      io,
      { ...TO_219, tunnelPoolCidr: "172.30.0.0/24" },
      { ...WAIT, waitSleepSeconds: 1 },
    );
    const felix = run.steps.filter((s) => s.write?.kind === "felix");
    expect(felix[0]?.write).to.deep.include({
      set: { programClusterRoutes: "Enabled", vxlanEnabled: true },
    });
    expect(felix[0]?.seconds).to.be.at.least(FELIX_TAKEOVER_SECONDS);
    // The write that turns programClusterRoutes off again hands nothing over: Felix's usual restart.
    expect(felix[1]?.seconds).to.be.within(FELIX_RESTART_SECONDS, FELIX_TAKEOVER_SECONDS - 1);
    expect(io.logs.join("\n")).to.match(
      /waiting for Felix restarting on every node after programClusterRoutes was turned on, to take the IPIP routes over from BIRD \(\d+ s left/,
    );
  });

  it("with the tunnel pool, checks that no VTEP moved across the pool's switch into VXLAN, and warns of one that did", async () => {
    const withTunnelPool = { ...TO_219, tunnelPoolCidr: "172.30.0.0/24" };
    const kept = new SimIo(start("IPIP Always", "bird", "explicit"));
    const run = await migrate(kept, withTunnelPool, WAIT);
    expect(kept.writes.map((w) => w.kind)).to.deep.equal([
      "felix",
      "tunnelPool",
      "pool",
      "felix",
      "backend",
    ]);
    expect(run.final.nodes.map((n) => n.tunnel.vxlan)).to.deep.equal([
      "172.30.0.1",
      "172.30.0.2",
      "172.30.0.3",
    ]);
    expect(run.warnings).to.deep.equal([]);

    // node-2's VTEP moves into the main pool once it has VXLAN (as if the tunnel pool stopped selecting it).
    const moved = new SimIo(start("IPIP Always", "bird", "explicit"));
    moved.twist = (obs) =>
      obs.live.pools.some((p) => p.name === "default-pool" && p.vxlanMode === "Always")
        ? {
            ...obs,
            nodes: obs.nodes.map((n) =>
              n.name === "node-2" ? { ...n, tunnel: { ...n.tunnel, vxlan: "10.233.65.1" } } : n,
            ),
          }
        : obs;
    const warned = await migrate(moved, withTunnelPool, WAIT);
    expect(warned.changed).to.equal(true);
    expect(warned.warnings).to.deep.equal([
      "The VXLAN tunnel address of node-2 (172.30.0.2 -> 10.233.65.1) changed across the switch of IPPool default-pool, though it came from IPPool default-pool-vxlan-tunnel beforehand: Felix restarted there and its traffic may have had no route for a moment. Check that default-pool-vxlan-tunnel is enabled and selects every node (calicoctl get ippool default-pool-vxlan-tunnel -o yaml).",
    ]);
  });

  it("reports no change on a second run", async () => {
    const io = new SimIo(start("VXLAN Always", "vxlan", "explicit"));
    const run = await migrate(io, TO_219, WAIT);
    expect(run.changed).to.equal(false);
    expect(io.writes).to.deep.equal([]);
  });

  it("resumes an interrupted run from the cluster alone", async () => {
    let mid = start("IPIP Always", "bird", "explicit");
    mid = converge(applyWrite(mid, { kind: "felix", set: { vxlanEnabled: true } }));
    const io = new SimIo(mid);
    await migrate(io, TO_219, WAIT);
    expect(io.writes.map((w) => w.kind)).to.deep.equal(["pool", "felix", "backend"]);
  });

  it("rolls back when a node never converges, verifies, and names the node", async () => {
    const io = new SimIo(start("IPIP Always", "bird", "explicit"), 2, "node-2");
    const err = await rejection(migrate(io, TO_219, WAIT));
    expect(err).to.be.instanceOf(MigrationFailed);
    expect((err as MigrationFailed).rolledBack).to.equal(true);
    expect(err.message).to.include("node-2 (vxlan)");
    expect(err.message).to.include("rolled back");
    expect(io.state.live.pools[0]).to.deep.include({ ipipMode: "Always", vxlanMode: "Never" });
    expect(io.state.live.configMapBackend).to.equal("bird");
    expect(io.state.live.felixDefault).to.deep.equal({ ipipEnabled: true, vxlanEnabled: false });
    expect(io.held).to.equal(null);
  });

  it("rolls back a migration towards bird that never converges: maxUnavailable goes back to 20% and the hold is gone", async () => {
    const io = new SimIo(start("VXLAN Always", "vxlan", "explicit"), 2);
    // node-2 never gets its IPIP tunnel address.
    io.twist = (obs) => ({
      ...obs,
      nodes: obs.nodes.map((n) =>
        n.name === "node-2" ? { ...n, tunnel: { ...n.tunnel, ipip: null } } : n,
      ),
    });
    const err = await rejection(migrate(io, target("IPIP Always", "bird"), WAIT));
    expect(err).to.be.instanceOf(MigrationFailed);
    expect((err as MigrationFailed).rolledBack, err.message).to.equal(true);
    const rollouts = io.writes.filter((w) => w.kind === "rollout");
    expect(io.writes[0], "the forward run held maxUnavailable first").to.deep.include({
      kind: "rollout",
      maxUnavailable: "100%",
      hold: true,
    });
    expect(rollouts.at(-1), "and the rollback put it back").to.deep.include({
      kind: "rollout",
      maxUnavailable: "20%",
    });
    expect(io.state.rollout.maxUnavailable).to.equal("20%");
    expect(io.state.rollout.heldMaxUnavailable).to.equal(undefined);
    expect(io.state.live.configMapBackend).to.equal("vxlan");
    expect(io.state.live.pools[0]).to.deep.include({ ipipMode: "Never", vxlanMode: "Always" });
  });

  it("refuses while another run holds the lock, writing nothing", async () => {
    const io = new SimIo(start("IPIP Always", "bird", "explicit"));
    io.held = "other-run";
    const err = await rejection(migrate(io, TO_219, WAIT));
    expect(err).to.be.instanceOf(LockRefused);
    expect(io.writes).to.deep.equal([]);
  });

  it("fails before any write when the cluster never settles", async () => {
    const from = start("IPIP Always", "bird", "explicit");
    const io = new SimIo(from, 0, "node-3");
    io.state = {
      ...from,
      live: {
        ...from.live,
        pools: [{ ...from.live.pools[0]!, ipipMode: "Never", vxlanMode: "Always" }],
      },
    };
    const err = await rejection(
      migrate(io, TO_219, { waitTimeoutSeconds: 10, waitSleepSeconds: 2 }),
    );
    expect(err.message).to.include("nothing was written");
    expect(io.writes).to.deep.equal([]);
  });
  it("renews the Lease right before every write", async () => {
    const io = new SimIo(start("IPIP Always", "bird", "explicit"));
    await migrate(io, TO_219, WAIT);
    const before = io.events.flatMap((e, i) => (e === "write" ? [io.events[i - 1]] : []));
    expect(before).to.have.length(4);
    expect(
      before.every((e) => e === "renew"),
      io.events.join(" "),
    ).to.equal(true);
  });

  it("counts reads that fail during a wait as pending, shows the error, and completes once they recover", async () => {
    const io = new SimIo(start("IPIP Always", "bird", "explicit"));
    let poolWrittenAt: number | null = null;
    const write = io.write.bind(io);
    io.write = (w: Write) => {
      if (w.kind === "pool") poolWrittenAt = io.clock.now();
      return write(w);
    };
    // The apiserver stops answering for 5 s just after the pool write.
    io.readFault = (t) =>
      poolWrittenAt !== null && t > poolWrittenAt && t <= poolWrittenAt + 5000
        ? "kubectl get nodes: timed out"
        : null;
    const run = await migrate(io, TO_219, WAIT);
    expect(run.changed).to.equal(true);
    expect(io.writes.map((w) => w.kind)).to.deep.equal(["felix", "pool", "felix", "backend"]);
    const shown = io.logs.filter((l) =>
      l.includes("reading the cluster failed: kubectl get nodes: timed out"),
    );
    expect(shown.length, io.logs.join("\n")).to.be.at.least(2);
    expect(shown[0]).to.match(/^step 2\/4 'Switch IPPool default-pool/);
    expect(run.steps.every((s) => s.settled)).to.equal(true);
  });

  /** A cluster whose nodes converge one by one after the pool write: node i at `at[i]` s after it (null: never). */
  function slowRoll(at: (number | null)[]): { io: SimIo; writesAt: number[] } {
    const io = new SimIo(start("IPIP Always", "bird", "explicit"), 0);
    const writesAt: number[] = [];
    let poolAt: number | null = null;
    let rolledBack = false;
    const write = io.write.bind(io);
    io.write = (w: Write) => {
      writesAt.push(io.clock.now());
      if (w.kind === "pool" && poolAt !== null) rolledBack = true;
      if (w.kind === "pool" && poolAt === null) poolAt = io.clock.now();
      return write(w);
    };
    // Until a second pool write (the rollback's), whose nodes converge at once.
    io.twist = (obs) => {
      if (poolAt === null || rolledBack) return obs;
      const since = io.clock.now() - poolAt;
      return {
        ...obs,
        nodes: obs.nodes.map((n, i) => {
          const t = at[i];
          return t !== null && t !== undefined && since >= t * 1000
            ? n
            : { ...n, calicoNodeReady: false };
        }),
      };
    };
    return { io, writesAt };
  }

  it("gives a wait the time its nodes take while each progresses within wait_timeout (issue 40)", async () => {
    // 24 s for the three nodes, each within wait_timeout 10 s of the one before.
    const { io } = slowRoll([8, 16, 24]);
    const run = await migrate(io, TO_219, { waitTimeoutSeconds: 10, waitSleepSeconds: 2 });
    expect(run.changed).to.equal(true);
    expect(run.steps.every((s) => s.settled)).to.equal(true);
    expect(
      io.logs.some((l) =>
        /^step 2\/4 .*: 1 of 3 nodes converged \(\d+ s\), the last progress \d+ s ago/.test(l),
      ),
      io.logs.join("\n"),
    ).to.equal(true);
  });

  it("ends a wait one wait_timeout after its last progress, and rolls back", async () => {
    // node-1 at 8 s and node-2 at 16 s after the pool write; node-3 never.
    const { io, writesAt } = slowRoll([8, 16, null]);
    const err = await rejection<MigrationFailed>(
      migrate(io, TO_219, { waitTimeoutSeconds: 10, waitSleepSeconds: 2 }),
    );
    expect(err.rolledBack).to.equal(true);
    expect(err.message).to.include("did not converge within wait_timeout");
    expect(err.message).to.include("calico-node not ready on node-3");
    // The rollback's first write: wait_timeout after node-2's progress (16 s), within a poll of 2 s.
    const [, pool, rollback] = writesAt;
    const waited = ((rollback ?? 0) - (pool ?? 0)) / 1000;
    expect(waited).to.be.within(26, 28);
  });

  it("rolls back and verifies it when reads fail past wait_timeout, reporting the unsettled step", async () => {
    const io = new SimIo(start("IPIP Always", "bird", "explicit"));
    let poolWrittenAt: number | null = null;
    const write = io.write.bind(io);
    io.write = (w: Write) => {
      if (w.kind === "pool" && poolWrittenAt === null) poolWrittenAt = io.clock.now();
      return write(w);
    };
    // Down for 14 s after the pool write, with wait_timeout 10 s.
    io.readFault = (t) =>
      poolWrittenAt !== null && t > poolWrittenAt && t <= poolWrittenAt + 14000
        ? "the connection to the server was refused"
        : null;
    const err = await rejection<MigrationFailed>(
      migrate(io, TO_219, { waitTimeoutSeconds: 10, waitSleepSeconds: 2 }),
    );
    expect(err).to.be.instanceOf(MigrationFailed);
    expect(err.message).to.include(
      "reading the cluster failed: the connection to the server was refused",
    );
    expect(err.message).to.include(
      "rolled back to the state before the first write and verified it",
    );
    expect(err.rolledBack).to.equal(true);
    expect(err.steps.map((s) => [s.write?.kind, s.settled])).to.deep.equal([
      ["felix", true],
      ["pool", false],
      ["pool", true],
      ["felix", true], // rollback: vxlanEnabled back to its explicit false (no pool uses it)
    ]);
    expect(io.logs.some((l) => /^rollback reading the cluster failed/.test(l))).to.equal(true);
    expect(io.state.live.pools[0]).to.deep.include({ ipipMode: "Always", vxlanMode: "Never" });
    expect(io.state.live.felixDefault).to.deep.equal({ ipipEnabled: true, vxlanEnabled: false });
    expect(err.last?.live.pools[0]).to.deep.include({ ipipMode: "Always" });
    expect(io.held).to.equal(null);
  });

  it("says the rollback was not verified when the cluster stays unreadable", async () => {
    const io = new SimIo(start("IPIP Always", "bird", "explicit"));
    io.write = ((write) => (w: Write) => {
      if (w.kind === "pool") io.readFault = () => "timed out";
      return write(w);
    })(io.write.bind(io));
    const err = await rejection<MigrationFailed>(
      migrate(io, TO_219, { waitTimeoutSeconds: 10, waitSleepSeconds: 2 }),
    );
    expect(err.rolledBack).to.equal(false);
    expect(err.message).to.match(
      /the rollback stopped: rollback reading the cluster kept failing for wait_timeout/,
    );
    expect(err.steps.map((s) => [s.write?.kind, s.settled])).to.deep.equal([
      ["felix", true],
      ["pool", false],
    ]);
    expect(err.last?.live.pools[0], "the last observation that succeeded").to.deep.include({
      vxlanMode: "Never",
    });
  });

  it("stops on a lost Lease without reading again, keeping the written step and the real error", async () => {
    const io = new SimIo(start("IPIP Always", "bird", "explicit"));
    io.releaseFault = new Error("kubectl: connection refused");
    io.write = ((write) => (w: Write) => {
      if (w.kind === "pool")
        io.renewFault = () =>
          new LockLost("Lease kube-system/calico-encap-migrate is no longer held");
      return write(w);
    })(io.write.bind(io));
    const err = await rejection<MigrationFailed>(migrate(io, TO_219, WAIT));
    expect(err.message).to.match(/^Lease kube-system\/calico-encap-migrate is no longer held/);
    expect(err.steps.map((s) => [s.write?.kind, s.settled])).to.deep.equal([
      ["felix", true],
      ["pool", false],
    ]);
    expect(io.events.slice(io.events.lastIndexOf("write"))).to.deep.equal([
      "write",
      "renew",
      "release",
    ]);
    expect(err.warnings.join(" ")).to.include(
      "could not be released (kubectl: connection refused)",
    );
  });
});
