// A rollback that stops keeps what it wrote (issue 37 item 2): the result carries every write made, forward and
// rollback, the reason the forward run failed, and a rollback write that failed as it was sent.

import { expect } from "chai";
import type { Write } from "../../../src/calico/plan/plan.js";
import { LockLost } from "../../../src/cluster/lock.js";
import { drive } from "../../../src/migrate/drive.js";
import { migrate } from "../../../src/migrate/executor.js";
import { MigrationFailed, WriteFailed } from "../../../src/migrate/types.js";
import { start, target } from "../../support/sim-cluster.js";
import { SimIo } from "../../support/sim-io.js";
import { rejection } from "../../support/rejection.js";

const WAIT = { waitTimeoutSeconds: 60, waitSleepSeconds: 2 };
const TO_219 = target("VXLAN Always", "vxlan");
const LOST =
  "Lease kube-system/calico-encap-migrate is no longer held by this run (holder now run-b)";

/** node-2 never gets its VXLAN address: the pool's switch does not converge and the run rolls back. */
function stuckRun(): SimIo {
  return new SimIo(start("IPIP Always", "bird", "explicit"), 2, "node-2");
}

/** Runs `then` as the n-th write (1-based) is sent, before it is made: a `then` that throws fails that write. */
function onWrite(io: SimIo, n: number, then: (w: Write) => void): void {
  const write = io.write.bind(io);
  let count = 0;
  io.write = async (w: Write) => {
    if (++count === n) then(w);
    return write(w);
  };
}

describe("a rollback that stops", () => {
  it("on a lost Lease keeps the forward and rollback writes and the reason the forward run failed", async () => {
    const io = stuckRun();
    // Writes 1 and 2: Felix's flags, the pool's switch (does not converge). Write 3: the rollback's pool switch;
    // then another run takes the Lease over.
    onWrite(io, 3, () => {
      io.renewFault = () => new LockLost(LOST);
    });
    const err = await rejection<MigrationFailed>(migrate(io, TO_219, WAIT));
    expect(err).to.be.instanceOf(MigrationFailed);
    expect(
      err.steps.map((s) => [s.write?.kind, s.settled]),
      JSON.stringify(err.steps),
    ).to.deep.equal([
      ["felix", true],
      ["pool", false],
      ["pool", false], // the rollback's switch back, written before the Lease was lost
    ]);
    expect(err.steps[2]?.write).to.deep.include({
      kind: "pool",
      set: { ipipMode: "Always", vxlanMode: "Never" },
    });
    expect(err.message, "the forward run's reason").to.match(
      /^step "Switch IPPool default-pool.*" did not converge within wait_timeout: .*node-2 \(vxlan\)/,
    );
    expect(err.message, "and why the rollback stopped").to.include(`the rollback stopped: ${LOST}`);
    expect(err.rolledBack).to.equal(false);
    expect(io.writes, "nothing written after the Lease was lost").to.have.length(3);
  });

  it("keeps the restore of FelixConfiguration default whose write failed, with what it sent and what came back", async () => {
    // Felix's flags unset before the run: the rollback writes them explicitly on its way back, then restores them.
    const io = new SimIo(start("IPIP Always", "bird", "unset"));
    let poolWrittenAt: number | null = null;
    onWrite(io, 2, (w) => {
      expect(w.kind).to.equal("pool");
      poolWrittenAt = io.clock.now();
    });
    // The apiserver stops answering for longer than wait_timeout after the pool's switch: the run rolls back.
    io.readFault = (t) =>
      poolWrittenAt !== null && t > poolWrittenAt && t <= poolWrittenAt + 64000 ? "refused" : null;
    // Writes 3 to 5 roll back (ipipEnabled, the pool, vxlanEnabled); write 6 restores the flags as unset, refused.
    const sent = 'felixconfiguration default spec {"ipipEnabled":null,"vxlanEnabled":null}';
    onWrite(io, 6, (w) => {
      expect(w).to.deep.equal({ kind: "felix", set: { ipipEnabled: null, vxlanEnabled: null } });
      throw new WriteFailed(
        [sent],
        "calicoctl patch felixconfiguration default failed with exit code 1, stderr: connection refused",
      );
    });
    const err = await rejection<MigrationFailed>(migrate(io, TO_219, WAIT));
    expect(err).to.be.instanceOf(MigrationFailed);
    expect(err.steps.map((s) => [s.write?.kind, s.settled])).to.deep.equal([
      ["felix", true],
      ["pool", false],
      ["felix", true],
      ["pool", true],
      ["felix", true],
      ["felix", false],
    ]);
    expect(err.steps[5]).to.deep.include({
      title: "Restore FelixConfiguration default as it was",
      sent: [sent],
    });
    expect(err.steps[5]?.error).to.match(/exit code 1, stderr: connection refused/);
    expect(err.message).to.match(
      /^step "Switch IPPool default-pool.*" did not converge within wait_timeout: reading the cluster failed: refused/,
    );
    expect(err.message).to.match(
      /the rollback stopped restoring FelixConfiguration default: its write failed/,
    );
    expect(err.rolledBack).to.equal(false);
  });
});

describe("a rollback's first read", () => {
  it("renews the Lease at each try while the cluster cannot be read, so it does not expire under a read that keeps failing", async () => {
    const io = new SimIo(start("IPIP Always", "bird", "explicit"), 0);
    // The first three reads fail (the API server away), the fourth succeeds.
    let reads = 0;
    io.readFault = () => (++reads <= 3 ? "connection refused" : null);
    const track = { seen: () => undefined, warn: () => undefined };
    const r = await drive(io, TO_219, WAIT, [], "rollback ", null, track);
    expect(r.ok).to.equal(true);
    const upToRead = io.events.slice(0, io.events.indexOf("write"));
    expect(upToRead.slice(0, 8), io.events.join(" ")).to.deep.equal([
      "renew",
      "observe",
      "renew",
      "observe",
      "renew",
      "observe",
      "renew",
      "observe",
    ]);
  });
});
