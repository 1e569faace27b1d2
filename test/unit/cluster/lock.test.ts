// The Lease lock against an in-memory stand-in for the apiserver's Lease endpoint (create, get, replace with
// resourceVersion preconditions, delete), as kubectl reports them: two runs never both hold the Lease.

import { expect } from "chai";
import { Lock, LockLost, LockRefused, leaseState } from "../../../src/cluster/lock.js";
import type { Json } from "../../../src/cluster/decode.js";
import type { CommandResult, CommandRunner, RunOptions } from "../../../src/cluster/runner.js";

class LeaseEndpoint implements CommandRunner {
  lease: (Json & { metadata: { resourceVersion: string } }) | null = null;
  private version = 100;
  readonly verbs: string[] = [];

  run(argv: readonly string[], o: RunOptions): Promise<CommandResult> {
    const verb = argv[argv.indexOf("kube-system") + 1] ?? "";
    this.verbs.push(verb);
    const done = (rc: number, stdout: string, stderr = ""): Promise<CommandResult> =>
      Promise.resolve({ rc, stdout, stderr, timedOut: false });
    const body = (): Json & { metadata: { resourceVersion?: string } } =>
      JSON.parse(o.stdin ?? "{}") as Json & { metadata: { resourceVersion?: string } };
    const store = (obj: Json): Promise<CommandResult> => {
      this.lease = {
        ...obj,
        metadata: { ...(obj.metadata as object), resourceVersion: String(++this.version) },
      };
      return done(0, JSON.stringify(this.lease));
    };
    switch (verb) {
      case "create":
        if (this.lease)
          return done(1, "", 'Error from server (AlreadyExists): leases "x" already exists');
        return store(body());
      case "replace": {
        const b = body();
        if (!this.lease) return done(1, "", 'Error from server (NotFound): leases "x" not found');
        if (b.metadata.resourceVersion !== this.lease.metadata.resourceVersion)
          return done(1, "", "Error from server (Conflict): the object has been modified");
        return store(b);
      }
      case "get":
        return done(0, this.lease ? JSON.stringify(this.lease) : "");
      case "delete":
        this.lease = null;
        return done(0, "");
      default:
        return done(1, "", `unexpected ${argv.join(" ")}`);
    }
  }
}

const lock = (api: LeaseEndpoint, holder: string): Lock =>
  new Lock(api, ["kubectl"], holder, 30, 5);

describe("the Lease lock", () => {
  const t0 = Date.parse("2026-11-29T10:00:00Z");

  it("refuses a second run while the first holds an unexpired Lease", async () => {
    const api = new LeaseEndpoint();
    await lock(api, "ctl/1/a").acquire(t0);
    let refused: unknown;
    await lock(api, "ctl/2/b")
      .acquire(t0 + 5000)
      .catch((e: unknown) => (refused = e));
    expect(refused).to.be.instanceOf(LockRefused);
    expect((refused as Error).message).to.match(/holder ctl\/1\/a/);
  });

  it("renews by replacing its own version, keeping the acquire time", async () => {
    const api = new LeaseEndpoint();
    const a = lock(api, "ctl/1/a");
    await a.acquire(t0);
    await a.renew(t0 + 10000);
    await a.renew(t0 + 20000);
    const s = leaseState(api.lease as Json);
    expect(s.holder).to.equal("ctl/1/a");
    expect(s.expiresMs).to.equal(t0 + 20000 + 30000);
    expect((api.lease?.spec as { acquireTime: string }).acquireTime).to.equal(
      "2026-11-29T10:00:00.000000Z",
    );
  });

  it("stops a run whose expired Lease another run took over, and leaves that run's Lease alone", async () => {
    const api = new LeaseEndpoint();
    const slow = lock(api, "ctl/1/a");
    await slow.acquire(t0);
    const next = lock(api, "ctl/2/b");
    await next.acquire(t0 + 31000); // the first Lease expired
    let lost: unknown;
    await slow.renew(t0 + 32000).catch((e: unknown) => (lost = e));
    expect(lost).to.be.instanceOf(LockLost);
    expect((lost as Error).message).to.match(/holder now ctl\/2\/b/);
    await slow.release();
    expect(leaseState(api.lease as Json).holder).to.equal("ctl/2/b");
    await next.release();
    expect(api.lease).to.equal(null);
  });

  it("releases nothing it never acquired", async () => {
    const api = new LeaseEndpoint();
    await lock(api, "ctl/2/b").acquire(t0);
    await lock(api, "ctl/1/a").release();
    expect(api.verbs).to.deep.equal(["create"]);
    expect(api.lease).to.not.equal(null);
  });
});
