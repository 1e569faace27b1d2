import { expect } from "chai";
import type { ProberFigures } from "../../support/lab.js";
import { nodeOfAgent } from "../../support/outages.js";
import { ipv6RouteResyncs, unexplainedIpv6Outages } from "../../support/route-resyncs.js";

// Lines of node-1's ip monitor on the dualstack lab (2026-12-04), one of Felix's periodic IPv6 route resyncs (the
// lines before its other adds) with a BIRD6 route, a neighbour, a link-local route and an IPv4 route after it.
const LOG = [
  "[2026-12-04T13:20:28.891270] Deleted fd85:ee78:d8a6:8607::1:8b40 dev vxlan-v6.calico metric 1024 mtu 1430 pref medium",
  "[2026-12-04T13:20:28.891375] Deleted fd85:ee78:d8a6:8607::1:8b40/122 via fd85:ee78:d8a6:8607::1:8b40 dev vxlan-v6.calico metric 1024 onlink mtu 1430 pref medium",
  "[2026-12-04T13:20:28.891454] Deleted blackhole fd85:ee78:d8a6:8607::1:5480/122 dev lo proto 80 metric 1024 pref medium",
  "[2026-12-04T13:20:28.891496] fd85:ee78:d8a6:8607::1:8b40/122 via fd85:ee78:d8a6:8607::1:8b40 dev vxlan-v6.calico metric 1024 onlink mtu 1430 pref medium",
  "[2026-12-04T13:21:00.000000] Deleted fd85:ee78:d8a6:8607::1:f700/122 via fd00:172:31:247::13 dev eth0 proto bird metric 1024 pref medium",
  "[2026-12-04T13:21:01.000000] Deleted fd85:ee78:d8a6:8607::1:f700 dev vxlan-v6.calico lladdr 66:f3:11:2a:0b:01 PERMANENT",
  "[2026-12-04T13:21:02.000000] Deleted fe80::/64 dev vxlan-v6.calico proto kernel metric 1024 pref medium",
  "[2026-12-04T13:21:03.000000] Deleted 10.233.65.64/26 via 10.233.65.64 dev vxlan.calico onlink mtu 1450",
].join("\n");

/** Made up: a resync by a Felix held off the CPU, its route to node-3's block gone for 300 ms. */
const SLOW = [
  "[2026-12-04T13:22:00.100000] Deleted fd85:ee78:d8a6:8607::1:f700/122 via fd85:ee78:d8a6:8607::1:f700 dev vxlan-v6.calico metric 1024 onlink mtu 1430 pref medium",
  "[2026-12-04T13:22:00.400000] fd85:ee78:d8a6:8607::1:f700/122 via fd85:ee78:d8a6:8607::1:f700 dev vxlan-v6.calico metric 1024 onlink mtu 1430 pref medium",
].join("\n");

/** The agents' IPv6 addresses: each pod in its node's /122 block (node-1 ::1:5480, node-2 ::1:8b40, node-3 ::1:f700). */
const ADDRESS: Record<string, string> = {
  "node-1.v6": "fd85:ee78:d8a6:8607::1:5481",
  "node-2.v6": "fd85:ee78:d8a6:8607::1:8b41",
  "node-3.v6": "fd85:ee78:d8a6:8607::1:f701",
  "node-2.host.v6": "fd00:172:31:247::12",
};

/** A prober report with one IPv6 pair's outages (and an IPv4 pair's, which never count). */
function report(
  from: string,
  to: string,
  outages: { from: string; to: string; lost: number }[],
): ProberFigures {
  const pair = (family: "ipv4" | "ipv6") => ({
    from,
    to,
    from_address: ADDRESS[from],
    to_address: ADDRESS[to],
    family,
    sent: 1000,
    received: 1000 - outages.reduce((a, o) => a + o.lost, 0),
    lost: outages.reduce((a, o) => a + o.lost, 0),
    pending: 0,
    longest_gap_ms: 50,
    first_lost_at: outages[0]?.from ?? null,
    last_lost_at: outages.at(-1)?.to ?? null,
    outages,
    rate_pps: 100,
  });
  return { pairs: [pair("ipv6"), pair("ipv4")] } as unknown as ProberFigures;
}

const at = (hms: string): string => new Date(Date.parse(`2026-12-04T${hms}`)).toISOString();

describe("Felix's IPv6 route resyncs in the lab's ip monitor logs", function () {
  it("reads a resync as Felix's IPv6 route deleted and added back, not a route deleted for good, BIRD's, neighbours, link-local or IPv4 routes", function () {
    const r = ipv6RouteResyncs("node-1", LOG);
    expect(r.map((x) => x.destination)).to.deep.equal(["fd85:ee78:d8a6:8607::1:8b40/122"]);
    expect((r[0]?.addedAt ?? 0) - (r[0]?.deletedAt ?? 0)).to.be.closeTo(0.121, 1e-3);
  });

  it("puts an IPv6 probe lost at a resync down to it when the route was on the probe's way or its echo's", function () {
    const r = ipv6RouteResyncs("node-1", LOG);
    const one = [{ from: at("13:20:28.892"), to: at("13:20:28.892"), lost: 1 }];
    expect(unexplainedIpv6Outages(report("node-1.v6", "node-2.v6", one), r)).to.deep.equal({
      outages: [],
      complete: true,
    });
    expect(unexplainedIpv6Outages(report("node-2.v6", "node-1.v6", one), r).outages).to.deep.equal(
      [],
    );
  });

  it("explains as many probes as a slow resync's measured width can lose, and no more (issue 37, item 8)", function () {
    const r = ipv6RouteResyncs("node-1", SLOW);
    const within = [{ from: at("13:22:00.110"), to: at("13:22:00.390"), lost: 28 }];
    expect(
      unexplainedIpv6Outages(report("node-1.v6", "node-3.v6", within), r).outages,
    ).to.deep.equal([]);
    const longer = [{ from: at("13:22:00.110"), to: at("13:22:00.900"), lost: 79 }];
    expect(
      unexplainedIpv6Outages(report("node-1.v6", "node-3.v6", longer), r).outages,
    ).to.have.length(1);
  });

  it("leaves unexplained an outage longer than its resync, far from every resync, off the resynced route's way, or at a route that never came back (issue 37, item 8)", function () {
    const r = ipv6RouteResyncs("node-1", LOG);
    const near = [{ from: at("13:20:28.880"), to: at("13:20:28.930"), lost: 5 }];
    expect(unexplainedIpv6Outages(report("node-1.v6", "node-2.v6", near), r).outages).to.deep.equal(
      [`node-1.v6 -> node-2.v6: 5 lost from ${near[0]?.from} to ${near[0]?.to}`],
    );
    const far = [{ from: at("13:20:31.000"), to: at("13:20:31.000"), lost: 1 }];
    expect(unexplainedIpv6Outages(report("node-2.v6", "node-1.v6", far), r).outages).to.have.length(
      1,
    );
    const one = [{ from: at("13:20:28.892"), to: at("13:20:28.892"), lost: 1 }];
    expect(
      unexplainedIpv6Outages(report("node-2.host.v6", "node-3.v6", one), r).outages,
    ).to.have.length(1);
    // node-1's blackhole for its own block went and did not come back in this log: no resync explains a probe to it.
    expect(unexplainedIpv6Outages(report("node-3.v6", "node-1.v6", one), r).outages).to.have.length(
      1,
    );
  });

  it("maps the prober's agent names, IPv4 and IPv6, pod and host, to their node", function () {
    expect(["node-2.host.v6", "node-2.v6", "node-2.host", "node-2"].map(nodeOfAgent)).to.deep.equal(
      Array(4).fill("node-2"),
    );
  });

  it("says when the prober's outages do not account for every lost probe", function () {
    const p = report("node-2.v6", "node-1.v6", [
      { from: at("13:20:28.892"), to: at("13:20:28.892"), lost: 1 },
    ]);
    (p.pairs[0] as { lost: number }).lost = 500;
    expect(unexplainedIpv6Outages(p, ipv6RouteResyncs("node-1", LOG)).complete).to.equal(false);
  });
});
