import { expect } from "chai";
import { addressFlushes, unexplainedByFlushes } from "../../support/address-flushes.js";
import type { ProberFigures } from "../../support/lab.js";

// node-3's ip monitor on the lab (2026-12-06 05:42, waits.test's rollback on Felix's path, Calico v3.31.0): Felix
// routes the peers' blocks via tunl0, then, restarted for the node's new IPIP tunnel address, replaces tunl0's old
// address; BIRD adds the blocks back via the underlay 4 ms later, and Felix its own at .981. The tunl0 neighbour
// entries before the routes are made up (the log has them a few ms after).
const LOG = [
  "[2026-12-06T05:40:50.100000] local 10.233.109.0 dev tunl0 table local proto kernel scope host src 10.233.109.0 ",
  "[2026-12-06T05:42:05.100000] 172.31.250.11 dev tunl0 lladdr 2e:62:40:2c:48:5a REACHABLE ",
  "[2026-12-06T05:42:05.100000] 172.31.250.12 dev tunl0 lladdr 8a:f2:ea:54:b6:c4 REACHABLE ",
  "[2026-12-06T05:42:05.270873] 10.233.69.0/24 via 172.31.250.12 dev tunl0 proto 80 onlink mtu 1480 ",
  "[2026-12-06T05:42:05.270916] 10.233.112.0/24 via 172.31.250.11 dev tunl0 proto 80 onlink mtu 1480 ",
  "[2026-12-06T05:42:05.270921] blackhole 10.233.109.0/24 proto 80 ",
  "[2026-12-06T05:42:05.568981] 10.233.69.2 via 172.31.250.12 dev eth0 proto bird ",
  "[2026-12-06T05:42:07.765931] Deleted local 10.233.109.0 dev tunl0 table local proto kernel scope host src 10.233.109.0 ",
  "[2026-12-06T05:42:07.766003] Deleted 10.233.112.0 dev tunl0 lladdr 2e:62:40:2c:48:5a STALE ",
  "[2026-12-06T05:42:07.766024] local 10.233.109.2 dev tunl0 table local proto kernel scope host src 10.233.109.2 ",
  "[2026-12-06T05:42:07.770096] 10.233.112.0/24 via 172.31.250.11 dev eth0 proto bird ",
  "[2026-12-06T05:42:07.770125] 10.233.69.0/24 via 172.31.250.12 dev eth0 proto bird ",
  "[2026-12-06T05:42:07.981288] 10.233.69.0/24 via 172.31.250.12 dev tunl0 proto 80 onlink mtu 1480 ",
  "[2026-12-06T05:42:07.981292] 10.233.112.0/24 via 172.31.250.11 dev tunl0 proto 80 onlink mtu 1480 ",
].join("\n");

const ADDRESS: Record<string, string> = {
  "node-1": "10.233.112.1",
  "node-2": "10.233.69.1",
  "node-3": "10.233.109.1",
  "node-1.host": "172.31.250.11",
};

function report(
  outages: { from: string; to: string; at: string; lost: number; caught_up?: number }[],
): ProberFigures {
  return {
    pairs: outages.map((o) => ({
      from: o.from,
      to: o.to,
      family: "ipv4",
      from_address: ADDRESS[o.from],
      to_address: ADDRESS[o.to],
      sent: 1000,
      received: 1000 - o.lost,
      lost: o.lost,
      pending: 0,
      longest_gap_ms: 5,
      rate_pps: 200,
      outages: [{ from: o.at, to: o.at, lost: o.lost, caught_up: o.caught_up }],
    })),
  } as unknown as ProberFigures;
}

/** A time of the monitor's clock (ip -ts prints local time) as the prober's ISO stamp. */
const at = (hms: string): string => new Date(Date.parse(`2026-12-06T${hms}`)).toISOString();

/** The same log, then Felix's routes back on tunl0: the stand-in's ARP resolves node-2 at once, node-1 a second later. */
const ARP = [
  LOG,
  "[2026-12-06T05:42:07.981303] 172.31.250.12 dev tunl0 lladdr 8a:f2:ea:54:b6:c4 REACHABLE ",
  "[2026-12-06T05:42:09.001000] 172.31.250.11 dev tunl0 lladdr 2e:62:40:2c:48:5a REACHABLE ",
].join("\n");

describe("address-flushes: the routes the kernel drops with a device's last address", () => {
  it("reads the routes via tunl0 at its address's deletion, and when each destination came back", () => {
    const flushes = addressFlushes("node-3", LOG);
    expect(
      flushes.map((f) => [f.destination, +(f.addedAt - f.deletedAt).toFixed(3)]),
    ).to.deep.equal([
      ["10.233.112.0/24", 4.165],
      ["10.233.69.0/24", 4.194],
    ]);
    expect(flushes.every((f) => f.node === "node-3")).to.equal(true);
  });

  it("counts a route put back on the stand-in's tunl0 as gone until the gateway's entry is resolved", () => {
    const gaps = addressFlushes("node-3", ARP).map((f) => [
      f.destination,
      +(f.addedAt - f.deletedAt).toFixed(3),
    ]);
    expect(gaps).to.deep.equal([
      ["10.233.112.0/24", 4.165],
      ["10.233.69.0/24", 4.194],
      ["10.233.69.0/24", 0.015],
      ["10.233.112.0/24", 1019.708],
    ]);
    // An entry that never resolves (the peer's tunl0 down) closes no gap: it explains nothing.
    const failed = ARP.replace(
      "[2026-12-06T05:42:09.001000] 172.31.250.11 dev tunl0 lladdr 2e:62:40:2c:48:5a REACHABLE",
      "[2026-12-06T05:42:09.001000] 172.31.250.11 dev tunl0 FAILED",
    );
    expect(addressFlushes("node-3", failed).map((f) => f.destination)).to.deep.equal([
      "10.233.112.0/24",
      "10.233.69.0/24",
      "10.233.69.0/24",
    ]);
  });

  it("drops nothing while the device keeps another address, nor routes through other devices", () => {
    const kept = LOG.replace(
      "[2026-12-06T05:42:05.270873]",
      "[2026-12-06T05:41:00.000000] local 10.233.109.9 dev tunl0 table local proto kernel scope host src 10.233.109.9 \n[2026-12-06T05:42:05.270873]",
    );
    expect(addressFlushes("node-3", kept)).to.deep.equal([]);
    expect(
      addressFlushes("node-3", LOG.replaceAll("dev tunl0 proto 80", "dev eth0 proto 80")),
    ).to.deep.equal([]);
  });

  it("explains a probe sent in a gap on its pair's way, and no more than the gap's width can lose", () => {
    const flushes = addressFlushes("node-3", LOG);
    const inGap = report([
      { from: "node-3", to: "node-1", at: at("05:42:07.768"), lost: 1 },
      { from: "node-2", to: "node-3", at: at("05:42:07.768"), lost: 1 },
    ]);
    expect(unexplainedByFlushes(inGap, flushes)).to.deep.equal({
      outages: [],
      explained: 2,
      complete: true,
    });
    // 4.2 ms at 200 probes a second: at most 1 probe per gap on the way.
    const tooMany = report([{ from: "node-3", to: "node-1", at: at("05:42:07.768"), lost: 3 }]);
    expect(unexplainedByFlushes(tooMany, flushes).outages).to.have.length(1);
    // A tick after a timer stall sends the rounds it owes at once: those the agent counted as catch-up, no more.
    const burst = { from: "node-3", to: "node-1", at: at("05:42:07.768"), lost: 3 };
    expect(unexplainedByFlushes(report([{ ...burst, caught_up: 2 }]), flushes).explained).to.equal(
      3,
    );
    expect(
      unexplainedByFlushes(report([{ ...burst, caught_up: 1 }]), flushes).outages,
    ).to.have.length(1);
  });

  it("does not explain a loss away from the gaps, or on a pair whose way no flushed route is on", () => {
    const flushes = addressFlushes("node-3", LOG);
    const later = report([{ from: "node-3", to: "node-1", at: at("05:42:09.000"), lost: 1 }]);
    expect(unexplainedByFlushes(later, flushes).outages).to.deep.equal([
      `node-3 -> node-1: 1 lost from ${at("05:42:09.000")} to ${at("05:42:09.000")}`,
    ]);
    const otherWay = report([{ from: "node-1", to: "node-2", at: at("05:42:07.768"), lost: 1 }]);
    expect(unexplainedByFlushes(otherWay, flushes).explained).to.equal(0);
    // node-1's host probes node-3's pod from its node address: the echo's way back is the underlay, never flushed.
    const host = report([{ from: "node-1.host", to: "node-3", at: at("05:42:07.768"), lost: 1 }]);
    expect(unexplainedByFlushes(host, flushes).explained).to.equal(0);
  });
});
