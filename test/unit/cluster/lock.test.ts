// The Lease lock against an in-memory stand-in for the apiserver's Lease endpoint (create, get, replace with
// resourceVersion preconditions, delete), as kubectl reports them: two runs never both hold the Lease, expiry is
// judged by the watching run's own clock, and a release never touches a Lease another run took over.

import { expect } from "chai";
import type { Json } from "../../../src/cluster/decode.js";
import type { Place } from "../../../src/cluster/lease.js";
import { formatHolder, leaseObject, leaseState } from "../../../src/cluster/lease.js";
import type { Clock } from "../../../src/cluster/lock.js";
import { Lock, LockLost, LockRefused } from "../../../src/cluster/lock.js";
import type { CommandResult, CommandRunner, RunOptions } from "../../../src/cluster/runner.js";
import { rejection } from "../../support/rejection.js";

class LeaseEndpoint implements CommandRunner {
  lease: (Json & { metadata: { resourceVersion: string } }) | null = null;
  private version = 100;
  readonly verbs: string[] = [];
  /** The next successful write prints this instead of the Lease (kubectl output that cannot be parsed). */
  garbleNext: string | null = null;
  /** Runs once, right after the next command is answered (another run acting in between two commands). */
  afterNext: (() => Promise<void>) | null = null;
  /** What a shell answers once kubectl is gone (exit 127), instead of running anything. */
  missing: CommandResult | null = null;

  async run(argv: readonly string[], o: RunOptions): Promise<CommandResult> {
    if (this.missing) return this.missing;
    const r = this.answer(argv, o);
    const hook = this.afterNext;
    this.afterNext = null;
    if (hook) await hook();
    return r;
  }

  private answer(argv: readonly string[], o: RunOptions): CommandResult {
    const verb = argv[argv.indexOf("kube-system") + 1] ?? "";
    this.verbs.push(verb);
    const done = (rc: number, stdout: string, stderr = ""): CommandResult => ({
      rc,
      stdout,
      stderr,
      timedOut: false,
    });
    const body = (): Json & { metadata: { resourceVersion?: string } } =>
      JSON.parse(o.stdin ?? "{}") as Json & { metadata: { resourceVersion?: string } };
    const store = (obj: Json): CommandResult => {
      this.lease = {
        ...obj,
        metadata: { ...(obj.metadata as object), resourceVersion: String(++this.version) },
      };
      const garbled = this.garbleNext;
      this.garbleNext = null;
      return done(0, garbled ?? JSON.stringify(this.lease));
    };
    switch (verb) {
      case "create":
        if (this.lease)
          return done(1, "", 'Error from server (AlreadyExists): leases "x" already exists');
        return store(body());
      case "replace": {
        const b = body();
        if (!this.lease) return done(1, "", 'Error from server (NotFound): leases "x" not found');
        // As the apiserver does: without a resourceVersion the replace is unconditional.
        if (
          b.metadata.resourceVersion !== undefined &&
          b.metadata.resourceVersion !== this.lease.metadata.resourceVersion
        )
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

  holder(): string {
    return this.lease ? leaseState(this.lease).holder : "(no Lease)";
  }

  /** Writes the Lease as another program would, bypassing any Lock. */
  put(holder: string, renewMs: number, duration: number): void {
    this.answer(["kubectl", "--namespace", "kube-system", this.lease ? "replace" : "create"], {
      timeoutSeconds: 5,
      stdin: JSON.stringify(
        leaseObject(holder, renewMs, duration, this.lease?.metadata.resourceVersion),
      ),
    });
  }
}

/** A clock that only moves when a run sleeps, running what was scheduled for the times it passes. */
class FakeClock implements Clock {
  t = Date.parse("2026-11-29T10:00:00Z");
  private events: { at: number; fn: () => Promise<void> }[] = [];
  now(): number {
    return this.t;
  }
  at(ms: number, fn: () => Promise<void>): void {
    this.events.push({ at: ms, fn });
    this.events.sort((a, b) => a.at - b.at);
  }
  async sleep(ms: number): Promise<void> {
    const until = this.t + ms;
    while (this.events[0] && this.events[0].at <= until) {
      const e = this.events.shift()!;
      this.t = Math.max(this.t, e.at);
      await e.fn();
    }
    this.t = until;
  }
}

const HOST: Place = { host: "ctl", bootId: "boot-1", pidNamespace: "4026531836" };
/** Another container with host networking on the same machine: same hostname and boot, its own PID namespace. */
const CONTAINER: Place = { ...HOST, pidNamespace: "4026532999" };

function lock(
  api: LeaseEndpoint,
  clock: FakeClock,
  place: Place,
  pid: number,
  alive: (pid: number) => boolean = () => true,
  log?: (verbosity: number, msg: string) => void,
): Lock {
  return new Lock({
    ...(log ? { log } : {}),
    runner: api,
    kubectl: ["kubectl"],
    holder: formatHolder(place, pid, `n${pid}`),
    here: place,
    durationSeconds: 30,
    timeoutSeconds: 5,
    maxWatchSeconds: 120,
    pollSeconds: 2,
    clock,
    alive,
  });
}

describe("the Lease lock", () => {
  it("refuses a second run once it sees the first, running on this host, renew the Lease", async () => {
    const api = new LeaseEndpoint();
    const clock = new FakeClock();
    const first = lock(api, clock, HOST, 1);
    await first.acquire();
    clock.at(clock.now() + 2000, () => first.renew());
    const t = clock.now();
    const err = await rejection(lock(api, clock, HOST, 2, (pid) => pid === 1).acquire());
    expect(err).to.be.instanceOf(LockRefused);
    expect(err.message).to.match(
      /holder ctl\/1\/n1\/boot-1\/4026531836.*renewed while this run watched it/,
    );
    expect(clock.now() - t).to.equal(2000);
  });

  it("takes over from a holder whose PID another process on this host now has, once unrenewed for its duration", async () => {
    const api = new LeaseEndpoint();
    const clock = new FakeClock();
    await lock(api, clock, HOST, 1).acquire(); // killed; pid 1 now belongs to something else
    const t = clock.now();
    await lock(api, clock, HOST, 2, (pid) => pid === 1).acquire();
    expect(api.holder()).to.equal("ctl/2/n2/boot-1/4026531836");
    expect(clock.now() - t).to.equal(30_000);
  });

  it("never renews unconditionally when kubectl printed no resourceVersion: it stops if the Lease is another run's", async () => {
    const api = new LeaseEndpoint();
    const clock = new FakeClock();
    const a = lock(api, clock, CONTAINER, 1);
    api.garbleNext = "lease.coordination.k8s.io/calico-encap-migrate created";
    await a.acquire();
    api.put("other/9/n9/boot-x/4026531836", clock.now(), 30); // another run took it over meanwhile
    const err = await rejection(a.renew());
    expect(err).to.be.instanceOf(LockLost);
    expect(err.message).to.match(/printed no resourceVersion/);
    expect(api.holder()).to.equal("other/9/n9/boot-x/4026531836");
    await a.release();
    expect(api.holder()).to.equal("other/9/n9/boot-x/4026531836");
  });

  it("renews at the version it reads back when kubectl printed none and the Lease is still its own", async () => {
    const api = new LeaseEndpoint();
    const clock = new FakeClock();
    const a = lock(api, clock, HOST, 1);
    api.garbleNext = "not json";
    await a.acquire();
    await a.renew();
    expect(api.holder()).to.equal("ctl/1/n1/boot-1/4026531836");
    expect(api.verbs).to.deep.equal(["create", "get", "replace"]);
  });

  it("a release that conflicts with a run that took the Lease over leaves that run's Lease, and says so", async () => {
    const api = new LeaseEndpoint();
    const clock = new FakeClock();
    const logs: string[] = [];
    const a = lock(
      api,
      clock,
      HOST,
      1,
      () => true,
      (_v, m) => logs.push(m),
    );
    await a.acquire();
    await lock(api, clock, HOST, 2, () => false).acquire(); // a's pid looks gone to it: taken over at once
    await a.release();
    expect(api.holder()).to.equal("ctl/2/n2/boot-1/4026531836");
    expect(logs).to.include(
      "Lease kube-system/calico-encap-migrate was taken over by another run; left as that run wrote it",
    );
  });

  it("takes over at once from a run whose process is gone in the same host, boot and PID namespace", async () => {
    const api = new LeaseEndpoint();
    const clock = new FakeClock();
    await lock(api, clock, HOST, 1).acquire();
    const t = clock.now();
    await lock(api, clock, HOST, 2, () => false).acquire();
    expect(api.holder()).to.equal("ctl/2/n2/boot-1/4026531836");
    expect(clock.now()).to.equal(t);
  });

  it("does not take a live run's Lease from another PID namespace with the same hostname and a free pid", async () => {
    const api = new LeaseEndpoint();
    const clock = new FakeClock();
    const first = lock(api, clock, HOST, 7);
    await first.acquire();
    // The first run keeps renewing, as it does in its waits.
    for (let s = 3; s <= 60; s += 3) clock.at(clock.now() + s * 1000, () => first.renew());
    // pid 7 does not exist in the container's namespace: alive() says no.
    const err = await rejection(lock(api, clock, CONTAINER, 7, () => false).acquire());
    expect(err).to.be.instanceOf(LockRefused);
    expect(err.message).to.include("renewed while this run watched it");
    expect(api.holder()).to.equal("ctl/7/n7/boot-1/4026531836");
  });

  it("takes over a Lease only after seeing it unrenewed for its duration by its own clock, whatever the holder's clock said", async () => {
    for (const skewMs of [-3600_000, 0, 3600_000]) {
      const api = new LeaseEndpoint();
      const clock = new FakeClock();
      // A run on another machine, killed; its clock was off by skewMs when it last renewed.
      api.put("other/9/n9/boot-x/4026531836", clock.now() + skewMs, 30);
      const firstSeen = clock.now();
      await lock(api, clock, HOST, 2).acquire();
      expect(api.holder(), `skew ${skewMs}`).to.equal("ctl/2/n2/boot-1/4026531836");
      expect(clock.now() - firstSeen, `skew ${skewMs}`).to.equal(30_000);
    }
  });

  it("refuses at once a Lease it would have to watch for longer than wait_timeout", async () => {
    const api = new LeaseEndpoint();
    const clock = new FakeClock();
    api.put("other-controller/1/abcd", clock.now(), 600);
    const err = await rejection(lock(api, clock, HOST, 2).acquire());
    expect(err.message).to.match(
      /^another calico_encap_migrate run holds Lease kube-system\/calico-encap-migrate \(holder other-controller\/1\/abcd, .*longer than wait_timeout \(120 s\)/,
    );
  });

  it("renews by replacing its own version, keeping the acquire time", async () => {
    const api = new LeaseEndpoint();
    const clock = new FakeClock();
    const a = lock(api, clock, HOST, 1);
    await a.acquire();
    await clock.sleep(10_000);
    await a.renew();
    await clock.sleep(10_000);
    await a.renew();
    const spec = api.lease?.spec as { acquireTime: string; renewTime: string };
    expect(spec.acquireTime).to.equal("2026-11-29T10:00:00.000000Z");
    expect(spec.renewTime).to.equal("2026-11-29T10:00:20.000000Z");
  });

  it("stops a run whose Lease another run took over, and leaves that run's Lease alone", async () => {
    const api = new LeaseEndpoint();
    const clock = new FakeClock();
    const slow = lock(api, clock, CONTAINER, 1);
    await slow.acquire();
    const next = lock(api, clock, HOST, 2);
    await next.acquire(); // watched it unrenewed for 30 s
    const err = await rejection(slow.renew());
    expect(err).to.be.instanceOf(LockLost);
    expect(err.message).to.match(/holder now ctl\/2\/n2/);
    await slow.release();
    expect(api.holder()).to.equal("ctl/2/n2/boot-1/4026531836");
  });

  it("releases at the version it wrote, so a run taking the Lease over in between keeps it", async () => {
    const api = new LeaseEndpoint();
    const clock = new FakeClock();
    const a = lock(api, clock, HOST, 1);
    await a.acquire();
    const b = lock(api, clock, HOST, 2, () => false);
    // b takes the Lease right after a's first release command is answered.
    api.afterNext = () => b.acquire();
    await a.release();
    expect(api.holder()).to.equal("ctl/2/n2/boot-1/4026531836");
    await b.renew();
  });

  it("leaves a released Lease that the next run takes at once", async () => {
    const api = new LeaseEndpoint();
    const clock = new FakeClock();
    const a = lock(api, clock, HOST, 1);
    await a.acquire();
    await a.release();
    expect(api.holder()).to.equal("");
    const t = clock.now();
    await lock(api, clock, CONTAINER, 2).acquire();
    expect(api.holder()).to.equal("ctl/2/n2/boot-1/4026532999");
    expect(clock.now()).to.equal(t);
  });

  it("releases nothing it never acquired", async () => {
    const api = new LeaseEndpoint();
    const clock = new FakeClock();
    await lock(api, clock, HOST, 2).acquire();
    await lock(api, clock, HOST, 1).release();
    expect(api.verbs).to.deep.equal(["create"]);
    expect(api.holder()).to.equal("ctl/2/n2/boot-1/4026531836");
  });

  it("a renewal kubectl timed out on but the apiserver applied: the next renewal goes on from this run's own version, no LockLost", async () => {
    const api = new LeaseEndpoint();
    const clock = new FakeClock();
    const a = lock(api, clock, HOST, 1);
    await a.acquire();
    // The apiserver applies the renewal, kubectl times out before printing it: this run keeps the version before.
    const applied = api.lease?.metadata.resourceVersion;
    const timedOut = api.run.bind(api);
    api.run = async (argv, o) => {
      const r = await timedOut(argv, o);
      api.run = timedOut;
      return { ...r, rc: 124, stdout: "", timedOut: true };
    };
    const first = await rejection(a.renew());
    expect(first.message).to.match(/timed out/);
    expect(api.lease?.metadata.resourceVersion).to.not.equal(applied);
    await clock.sleep(2000);
    await a.renew();
    expect(api.holder()).to.equal("ctl/1/n1/boot-1/4026531836");
    await a.renew();
    await a.release();
    expect(api.holder()).to.equal("");
  });

  it("a Lease deleted between this run's read and its take-over (as the refusal advises) is created anew, not refused as another run's", async () => {
    const api = new LeaseEndpoint();
    const clock = new FakeClock();
    await lock(api, clock, HOST, 1).acquire();
    // After the second run's create (AlreadyExists) and its read, an operator deletes the Lease.
    api.afterNext = () => {
      api.afterNext = () => {
        api.lease = null;
        return Promise.resolve();
      };
      return Promise.resolve();
    };
    await lock(api, clock, HOST, 2, () => false).acquire();
    expect(api.holder()).to.equal("ctl/2/n2/boot-1/4026531836");
    expect(api.verbs).to.deep.equal(["create", "create", "get", "replace", "create"]);
  });

  describe("a kubectl the shell cannot find (exit 127)", () => {
    const SHELLS = [
      "sh: 1: /usr/local/bin/kubectl: not found",
      "bash: line 1: /usr/local/bin/kubectl: command not found",
      "timeout: failed to run command '/usr/local/bin/kubectl': No such file or directory",
    ];
    for (const stderr of SHELLS)
      it(`is said to be missing, not another run, on renewal, batch renewal and release: ${stderr}`, async () => {
        const api = new LeaseEndpoint();
        const clock = new FakeClock();
        const a = lock(api, clock, HOST, 1);
        await a.acquire();
        api.missing = { rc: 127, stdout: "", stderr, timedOut: false };
        const errors = [
          await rejection(a.renew()),
          await rejection(a.renewed(["kubectl", "patch", "lease"], api.missing)),
          await rejection(a.release()),
        ];
        for (const err of errors) {
          expect(err, err.message).to.not.be.instanceOf(LockLost);
          expect(err.message).to.not.match(/another run/);
          expect(err.message).to.include("exit code 127 (command not found)");
          expect(err.message).to.include(stderr);
          expect(err.message).to.match(/Install kubectl .* or set the option that names its path/);
        }
      });
  });
});
