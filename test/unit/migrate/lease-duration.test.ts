// The migration's Lease never lapses between two renewals, a write included (issue 37 item 1): on a fake clock,
// every command takes all the time it is allowed (command_timeout, then KILL_AFTER until `timeout -k` kills it), a
// renewal's change lands as its command starts and a write's as it ends. Between the renewal before the backend
// write, the write's two commands, wait_sleep and the next poll's renewal, another run must never have been able to
// take the Lease over.

import { expect } from "chai";
import { KILL_AFTER, batchTimeout } from "../../../src/cluster/runner.js";
import type { Clock } from "../../../src/cluster/lock.js";
import type { BatchCommand, CommandResult, RunOptions } from "../../../src/cluster/runner.js";
import { MOST_COMMANDS_PER_WRITE, commandsFor } from "../../../src/cluster/write.js";
import type { Write } from "../../../src/calico/plan/plan.js";
import { realIo } from "../../../src/migrate/io.js";
import { leaseDurationSeconds, lockTiming } from "../../../src/migrate/lease-duration.js";
import { RecordedPoll } from "../../support/recorded-poll.js";
import { writeContext } from "../../support/builders.js";

const OPTIONS = {
  client: "kubectl" as const,
  datastore: "kdd" as const,
  calicoctlPath: "calicoctl",
  kubectlPath: "kubectl",
  kubeconfig: "/etc/kubernetes/admin.conf",
  timeoutSeconds: 60,
};
/** calico_encap_migrate's defaults. */
const PARAMS = { command_timeout: 60, wait_sleep: 2, wait_timeout: 600 };
const WRITE_CONTEXT = writeContext({
  calicoctlPath: "calicoctl",
  kubectlPath: "kubectl",
  kubeconfig: OPTIONS.kubeconfig,
});

type Lease = { metadata: { resourceVersion: string }; spec: Record<string, unknown> };

/** A fake clock the commands move. */
class FakeClock implements Clock {
  t = 0;
  now(): number {
    return this.t;
  }
  sleep(ms: number): Promise<void> {
    this.t += ms;
    return Promise.resolve();
  }
}

/**
 * The recorded poll's reads and the Lease as the apiserver keeps it, where each command runs as long as it may. It
 * notes every moment a change landed while the Lease, as this run last wrote it, could already have been taken over
 * by another run that saw it at once.
 */
class SlowCluster extends RecordedPoll {
  lease: Lease | null = null;
  /** When the Lease's current version was stored. */
  private storedAt = 0;
  private version = 10;
  /** What landed after the Lease could have lapsed. */
  readonly lapses: string[] = [];
  /** Each write command, with when it ended. */
  readonly writes: { what: string; at: number }[] = [];

  constructor(private readonly clock: FakeClock) {
    super();
  }

  private landing(what: string): void {
    if (!this.lease) return;
    const expires = this.storedAt + Number(this.lease.spec.leaseDurationSeconds) * 1000;
    if (this.clock.t >= expires)
      this.lapses.push(
        `${what} at ${this.clock.t / 1000} s, the Lease renewed at ${this.storedAt / 1000} s for ${String(this.lease.spec.leaseDurationSeconds)} s`,
      );
  }

  override run(
    argv: readonly string[],
    o: RunOptions = { timeoutSeconds: 5 },
  ): Promise<CommandResult> {
    const whole = (o.timeoutSeconds + KILL_AFTER) * 1000;
    const isLease = argv.includes("lease") || (o.stdin ?? "").includes('"Lease"');
    if (isLease) {
      // A renewal lands as it starts, and answers only at its kill.
      const r = this.lease_(argv, o);
      this.clock.t += whole;
      return r;
    }
    this.clock.t += whole;
    const line = argv.join(" ");
    if (argv.includes("patch")) {
      this.landing(`write ${line.slice(0, 80)}`);
      this.writes.push({ what: line, at: this.clock.t });
      return Promise.resolve({ rc: 0, stdout: "", stderr: "", timedOut: false });
    }
    return super.run(argv);
  }

  /** A poll's batch: its renewal lands only as its command is killed, the batch ends at its own timeout. */
  runAll(commands: readonly BatchCommand[]): Promise<CommandResult[]> {
    const start = this.clock.t;
    const results = commands.map((c) => {
      this.clock.t = start + (c.timeoutSeconds + KILL_AFTER) * 1000;
      return c.argv.includes("lease")
        ? this.lease_(c.argv, { timeoutSeconds: c.timeoutSeconds })
        : super.run(c.argv);
    });
    this.clock.t = start + batchTimeout(commands) * 1000;
    return Promise.all(results);
  }

  private lease_(argv: readonly string[], o: RunOptions): Promise<CommandResult> {
    const verb = argv[argv.indexOf("kube-system") + 1];
    const done = (rc: number, stdout: string, stderr = ""): Promise<CommandResult> =>
      Promise.resolve({ rc, stdout, stderr, timedOut: false });
    const stored = (spec: Record<string, unknown>): Promise<CommandResult> => {
      this.landing(`Lease ${verb ?? ""}`);
      this.lease = { metadata: { resourceVersion: String(++this.version) }, spec };
      this.storedAt = this.clock.t;
      return done(0, JSON.stringify({ kind: "Lease", ...this.lease }));
    };
    if (verb === "create" || verb === "replace")
      return stored((JSON.parse(o.stdin ?? "{}") as Lease).spec);
    if (verb === "patch") {
      const patch = JSON.parse(argv[argv.indexOf("-p") + 1] ?? "{}") as Lease;
      return stored({ ...this.lease?.spec, ...patch.spec });
    }
    return done(1, "", `unexpected ${argv.join(" ")}`);
  }
}

describe("the migration Lease's duration", () => {
  it("outlasts the renewal before the backend write, its two commands, wait_sleep and the next poll, every command as slow as it may be", async () => {
    const clock = new FakeClock();
    const cluster = new SlowCluster(clock);
    const io = realIo(
      cluster,
      { ...OPTIONS, timeoutSeconds: PARAMS.command_timeout },
      WRITE_CONTEXT,
      lockTiming(PARAMS),
      () => undefined,
      clock,
    );
    await io.lock.acquire();
    await clock.sleep(PARAMS.wait_sleep * 1000);
    await io.poll?.();
    // renewAndWrite's steps: the renewal on its own, then the write's commands.
    await io.lock.renew();
    await io.write({ kind: "backend", from: "bird", backend: "vxlan" });
    await clock.sleep(PARAMS.wait_sleep * 1000);
    const p = await io.poll?.();
    expect(p?.renewError ?? null).to.equal(null);
    expect(cluster.writes.map((w) => w.what)).to.have.length(2);
    expect(cluster.lapses, cluster.lapses.join("\n")).to.deep.equal([]);
  });

  it("counts the most commands a write sends", () => {
    const writes: Write[] = [
      { kind: "felix", set: { vxlanEnabled: true } },
      {
        kind: "pool",
        pool: "default-pool",
        from: { ipipMode: "Always", vxlanMode: "Never" },
        set: { ipipMode: "Never", vxlanMode: "Always" },
      },
      { kind: "backend", from: "bird", backend: "vxlan" },
      {
        kind: "tunnelPool",
        pool: "default-pool-vxlan-tunnel",
        cidr: "172.30.0.0/24",
        nodeSelector: "all()",
        encap: "vxlan",
      },
      { kind: "rollout", from: "20%", maxUnavailable: "100%", hold: true },
    ];
    for (const client of ["calicoctl", "kubectl"] as const) {
      const counts = writes.map((w) => commandsFor(w, { ...WRITE_CONTEXT, client }).length);
      expect(Math.max(...counts), client).to.equal(MOST_COMMANDS_PER_WRITE);
    }
  });

  it("is 267 s with the defaults, and grows with command_timeout and wait_sleep", () => {
    expect(leaseDurationSeconds(60, 2)).to.equal(267);
    expect(leaseDurationSeconds(10, 30)).to.equal(4 * 10 + 25 + 30);
  });
});
