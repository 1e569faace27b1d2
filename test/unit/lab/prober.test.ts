import { expect } from "chai";
import { report } from "../../lab/prober/control.js";
import { hex6 } from "../../lab/prober/inet6.js";
import type { PairSummary, ProberSummary } from "../../lab/prober/types.js";
import { proberSummary } from "../../support/builders.js";

describe("lab prober: IPv6 pairs", () => {
  it("writes an IPv6 address as /proc/net/if_inet6 does", () => {
    expect(hex6("fd85:ee78:d8a6:8607::1:5481")).to.equal("fd85ee78d8a686070000000000015481");
    expect(hex6("FD00:172:31:250::11")).to.equal("fd000172003102500000000000000011");
    expect(hex6("::1")).to.equal("00000000000000000000000000000001");
    expect(hex6("fe80::")).to.equal("fe800000000000000000000000000000");
  });

  const pair = (to: string, sent: number, lost: number, at: string | null): PairSummary => ({
    to,
    address: "x",
    sent,
    received: sent - lost,
    lost,
    pending: 0,
    late: 0,
    send_errors: 0,
    longest_gap_ms: lost * 10,
    first_lost_at: at,
    last_lost_at: at,
    outages: at ? [{ from: at, to: at, lost }] : [],
    rate_pps: 100,
  });
  const agent = (node: string, family: "ipv4" | "ipv6", pairs: PairSummary[]): ProberSummary =>
    proberSummary(node, family, pairs);

  it("reports IPv6 pairs as their own family, counted in the totals", () => {
    const r = report([
      agent("node-1", "ipv4", [pair("node-2", 100, 0, null)]),
      agent("node-1.v6", "ipv6", [pair("node-2.v6", 100, 3, "2026-12-01T05:00:01.000Z")]),
      agent("node-1.host.v6", "ipv6", [pair("node-2.v6", 100, 1, "2026-12-01T05:00:00.000Z")]),
    ]);
    expect(r.sent).to.equal(300);
    expect(r.lost).to.equal(4);
    expect(r.families.ipv4).to.include({ pair_count: 1, sent: 100, lost: 0 });
    expect(r.families.ipv6).to.include({
      pair_count: 2,
      sent: 200,
      lost: 4,
      longest_gap_ms: 30,
      first_lost_at: "2026-12-01T05:00:00.000Z",
      last_lost_at: "2026-12-01T05:00:01.000Z",
    });
    expect(r.pairs.map((p) => `${p.from}>${p.to}:${p.family}`)).to.deep.equal([
      "node-1>node-2:ipv4",
      "node-1.v6>node-2.v6:ipv6",
      "node-1.host.v6>node-2.v6:ipv6",
    ]);
  });

  it("an IPv4-only run has no ipv6 figures, and its totals are the IPv4 pairs'", () => {
    const r = report([
      agent("node-1", "ipv4", [pair("node-2", 50, 2, "2026-12-01T05:00:00.000Z")]),
    ]);
    expect(r.families.ipv6).to.equal(undefined);
    expect(r).to.include({ sent: 50, lost: 2, pair_count: 1 });
  });
});
