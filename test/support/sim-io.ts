// A simulated cluster behind MigrationIo, for the executor's tests: it converges `lag` polls after each write, on a
// clock that moves only when the executor sleeps.

import type { ClusterObservation } from "../../src/calico/shared/observation.js";
import type { Write } from "../../src/calico/plan/plan.js";
import { LockRefused } from "../../src/cluster/lock.js";
import type { MigrationIo } from "../../src/migrate/types.js";
import { applyWrite, converge } from "./sim-cluster.js";

/** A cluster that takes `lag` polls to converge after each write; `stuck` never gets its VXLAN address. */
export class SimIo implements MigrationIo {
  writes: Write[] = [];
  logs: string[] = [];
  /** "renew", "write", "observe", "release" in order. */
  events: string[] = [];
  held: string | null = null;
  /** A read (or renewal) at this clock time fails with the message returned; null: it succeeds. */
  readFault: (t: number) => string | null = () => null;
  renewFault: (t: number) => Error | null = () => null;
  releaseFault: Error | null = null;
  /** What calico-node does besides the rule converge() plays, applied to each settled observation. */
  twist: (obs: ClusterObservation) => ClusterObservation = (obs) => obs;
  private lagLeft = 0;
  private t = 0;

  constructor(
    public state: ClusterObservation,
    private readonly lag = 2,
    private readonly stuck: string | null = null,
  ) {}

  private settled(): ClusterObservation {
    const c = this.twist(converge(this.state));
    if (!this.stuck) return c;
    return {
      ...c,
      nodes: c.nodes.map((n) =>
        n.name === this.stuck ? { ...n, tunnel: { ...n.tunnel, vxlan: null } } : n,
      ),
    };
  }

  observe(): Promise<ClusterObservation> {
    this.events.push("observe");
    const fault = this.readFault(this.t);
    if (fault !== null) return Promise.reject(new Error(fault));
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
    this.events.push("write");
    this.writes.push(w);
    this.state = applyWrite(this.state, w);
    this.lagLeft = this.lag;
    return Promise.resolve();
  }
  lock = {
    acquire: (): Promise<void> => {
      if (this.held && this.held !== "me")
        return Promise.reject(new LockRefused(`held by ${this.held}`));
      this.held = "me";
      return Promise.resolve();
    },
    renew: (): Promise<void> => {
      this.events.push("renew");
      const fault = this.renewFault(this.t);
      return fault ? Promise.reject(fault) : Promise.resolve();
    },
    release: (): Promise<void> => {
      this.events.push("release");
      if (this.releaseFault) return Promise.reject(this.releaseFault);
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
