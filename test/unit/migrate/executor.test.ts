import { expect } from "chai";
import type { ClusterObservation } from "../../../src/calico/observation.js";
import type { Write } from "../../../src/calico/plan.js";
import { LockRefused } from "../../../src/cluster/lock.js";
import type { MigrationIo } from "../../../src/migrate/executor.js";
import { MigrationFailed, migrate } from "../../../src/migrate/executor.js";
import { applyWrite, converge, start, target } from "../../support/sim-cluster.js";

/** A cluster that takes `lag` polls to converge after each write; `stuck` never gets its VXLAN address. */
class SimIo implements MigrationIo {
  writes: Write[] = [];
  logs: string[] = [];
  held: string | null = null;
  private lagLeft = 0;
  private t = 0;

  constructor(
    public state: ClusterObservation,
    private readonly lag = 2,
    private readonly stuck: string | null = null,
  ) {}

  private settled(): ClusterObservation {
    const c = converge(this.state);
    if (!this.stuck) return c;
    return {
      ...c,
      nodes: c.nodes.map((n) =>
        n.name === this.stuck ? { ...n, tunnel: { ...n.tunnel, vxlan: null } } : n,
      ),
    };
  }

  observe(): Promise<ClusterObservation> {
    if (this.lagLeft > 0) {
      this.lagLeft--;
      const s = this.state;
      return Promise.resolve({
        ...s,
        nodes: s.nodes.map((n) => ({ ...n, calicoNodeReady: false })),
      });
    }
    this.state = this.settled();
    return Promise.resolve(this.state);
  }
  write(w: Write): Promise<void> {
    this.writes.push(w);
    this.state = applyWrite(this.state, w);
    this.lagLeft = this.lag;
    return Promise.resolve();
  }
  lock = {
    acquire: (_now: number): Promise<void> => {
      if (this.held && this.held !== "me")
        return Promise.reject(new LockRefused(`held by ${this.held}`));
      this.held = "me";
      return Promise.resolve();
    },
    renew: (_now: number): Promise<void> => Promise.resolve(),
    release: (): Promise<void> => {
      if (this.held === "me") this.held = null;
      return Promise.resolve();
    },
  };
  clock = {
    now: (): number => this.t,
    sleep: (ms: number): Promise<void> => {
      this.t += ms;
      return Promise.resolve();
    },
  };
  log(_v: number, msg: string): void {
    this.logs.push(msg);
  }
}

const WAIT = { waitTimeoutSeconds: 60, waitSleepSeconds: 2 };
const TO_219 = target("VXLAN Always", "vxlan");

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a failure");
}

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
    const err = await failure(migrate(io, TO_219, WAIT));
    expect(err).to.be.instanceOf(MigrationFailed);
    expect((err as MigrationFailed).rolledBack).to.equal(true);
    expect(err.message).to.include("node-2 (vxlan)");
    expect(err.message).to.include("rolled back");
    expect(io.state.live.pools[0]).to.deep.include({ ipipMode: "Always", vxlanMode: "Never" });
    expect(io.state.live.configMapBackend).to.equal("bird");
    expect(io.state.live.felixDefault).to.deep.equal({ ipipEnabled: true, vxlanEnabled: false });
    expect(io.held).to.equal(null);
  });

  it("refuses while another run holds the lock, writing nothing", async () => {
    const io = new SimIo(start("IPIP Always", "bird", "explicit"));
    io.held = "other-run";
    const err = await failure(migrate(io, TO_219, WAIT));
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
    const err = await failure(migrate(io, TO_219, { waitTimeoutSeconds: 10, waitSleepSeconds: 2 }));
    expect(err.message).to.include("nothing was written");
    expect(io.writes).to.deep.equal([]);
  });
});
