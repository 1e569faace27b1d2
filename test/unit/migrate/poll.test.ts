// One migration poll is one round trip (issue 19 item 8): the Lease's renewal rides in the observation's batch as a
// merge patch whose resourceVersion is the precondition, so a Lease another run took over still ends the run, and a
// failed renewal is reported while the observation is kept.

import { expect } from "chai";
import { LockLost } from "../../../src/cluster/lock.js";
import type { BatchCommand, CommandResult, RunOptions } from "../../../src/cluster/runner.js";
import { realIo } from "../../../src/migrate/io.js";
import { RecordedPoll } from "../../support/recorded-poll.js";
import { rejection } from "../../support/rejection.js";
import { writeContext } from "../../support/builders.js";

const OPTIONS = {
  client: "kubectl" as const,
  datastore: "kdd" as const,
  calicoctlPath: "calicoctl",
  kubectlPath: "kubectl",
  kubeconfig: "/etc/kubernetes/admin.conf",
  timeoutSeconds: 5,
};

type Lease = { metadata: { resourceVersion: string }; spec: Record<string, unknown> };

/** The recorded poll's reads, and the Lease as the apiserver keeps it (create, merge patch, replace, get). */
class Cluster extends RecordedPoll {
  /** Each batch the poll sent, as command lines. */
  readonly batches: string[][] = [];
  /** Commands sent on their own, outside any batch. */
  readonly alone: string[] = [];
  lease: Lease | null = null;
  private version = 10;
  /** What the next Lease patch answers instead of applying it. */
  failNextPatch: CommandResult | null = null;

  override run(
    argv: readonly string[],
    o: RunOptions = { timeoutSeconds: 5 },
  ): Promise<CommandResult> {
    this.alone.push(argv.join(" "));
    return this.answer(argv, o);
  }

  runAll(commands: readonly BatchCommand[]): Promise<CommandResult[]> {
    this.batches.push(commands.map((c) => c.argv.join(" ")));
    return Promise.all(
      commands.map((c) => this.answer(c.argv, { timeoutSeconds: c.timeoutSeconds })),
    );
  }

  /** Another run takes the Lease over (a newer version than this run wrote). */
  takenOver(): void {
    if (this.lease)
      this.lease = {
        metadata: { resourceVersion: String(++this.version) },
        spec: { ...this.lease.spec, holderIdentity: "another run" },
      };
  }

  private answer(argv: readonly string[], o: RunOptions): Promise<CommandResult> {
    const verb = argv[argv.indexOf("kube-system") + 1];
    const done = (rc: number, stdout: string, stderr = ""): Promise<CommandResult> =>
      Promise.resolve({ rc, stdout, stderr, timedOut: false });
    const stored = (spec: Record<string, unknown>): Promise<CommandResult> => {
      this.lease = { metadata: { resourceVersion: String(++this.version) }, spec };
      return done(0, JSON.stringify({ kind: "Lease", ...this.lease }));
    };
    if (!argv.includes("lease") && !(o.stdin ?? "").includes('"Lease"')) return super.run(argv);
    if (verb === "get")
      return this.lease
        ? done(0, JSON.stringify({ kind: "Lease", ...this.lease }))
        : done(1, "", 'Error from server (NotFound): leases "calico-encap-migrate" not found');
    if (verb === "create") return stored((JSON.parse(o.stdin ?? "{}") as Lease).spec);
    if (verb === "patch") {
      const failure = this.failNextPatch;
      this.failNextPatch = null;
      if (failure) return Promise.resolve(failure);
      const patch = JSON.parse(argv[argv.indexOf("-p") + 1] ?? "{}") as Lease;
      if (!this.lease) return done(1, "", "Error from server (NotFound): leases not found");
      if (patch.metadata.resourceVersion !== this.lease.metadata.resourceVersion)
        return done(1, "", "Error from server (Conflict): the object has been modified");
      return stored({ ...this.lease.spec, ...patch.spec });
    }
    return done(1, "", `unexpected ${argv.join(" ")}`);
  }
}

function ioFor(cluster: Cluster): ReturnType<typeof realIo> {
  return realIo(
    cluster,
    OPTIONS,
    writeContext({
      calicoctlPath: "calicoctl",
      kubectlPath: "kubectl",
      kubeconfig: OPTIONS.kubeconfig,
    }),
    { durationSeconds: 75, maxWatchSeconds: 600, pollSeconds: 2 },
    () => undefined,
  );
}

describe("a migration poll", () => {
  it("is one round trip: the Lease's renewal rides in the observation's batch, and the next renews what it wrote", async () => {
    const cluster = new Cluster();
    const io = ioFor(cluster);
    await io.lock.acquire();
    const acquired = cluster.lease?.metadata.resourceVersion;
    cluster.alone.length = 0;
    for (const n of [1, 2]) {
      const p = await io.poll?.();
      expect(
        p?.obs?.nodes.map((x) => x.name),
        `poll ${n}`,
      ).to.deep.equal(["node-1", "node-2", "node-3"]);
      expect(p?.renewError ?? null, `poll ${n}`).to.equal(null);
    }
    expect(cluster.alone, "nothing outside the batches").to.deep.equal([]);
    expect(cluster.batches).to.have.length(2);
    for (const b of cluster.batches) {
      expect(b[0]).to.match(
        /^kubectl .*--namespace kube-system patch lease calico-encap-migrate --type merge -p /,
      );
      expect(b.slice(1).join("\n")).to.include("get pods");
    }
    expect(Number(cluster.lease?.metadata.resourceVersion)).to.equal(Number(acquired) + 2);
  });

  it("ends the run with LockLost when another run took the Lease over", async () => {
    const cluster = new Cluster();
    const io = ioFor(cluster);
    await io.lock.acquire();
    cluster.takenOver();
    const err = await rejection(io.poll?.() ?? Promise.resolve());
    expect(err).to.be.instanceOf(LockLost);
    expect(String(err)).to.include("holder now another run");
  });

  it("reports a failed renewal and keeps the observation", async () => {
    const cluster = new Cluster();
    const io = ioFor(cluster);
    await io.lock.acquire();
    cluster.failNextPatch = {
      rc: 1,
      stdout: "",
      stderr: "The connection to the server was refused",
      timedOut: false,
    };
    const p = await io.poll?.();
    expect(p?.obs?.nodes).to.have.length(3);
    expect(String(p?.renewError)).to.include("The connection to the server was refused");
    // The version it last wrote still holds: the next poll renews it.
    const next = await io.poll?.();
    expect(next?.renewError ?? null).to.equal(null);
  });
});
