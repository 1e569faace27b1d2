import { expect } from "chai";
import type { ProberFigures } from "../../support/lab.js";
import { nodeOfAgent } from "../../support/outages.js";
import { ipv6RouteDeletions, unexplainedIpv6Outages } from "../../support/route-resyncs.js";

// Lines of node-1's ip monitor on the dualstack lab (2026-12-04), one of Felix's periodic IPv6 route resyncs with a
// BIRD6 route, a neighbour, a link-local route and an IPv4 route around it.
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

/** A prober report with one IPv6 pair's outages (and an IPv4 pair's, which never count). */
function report(
  from: string,
  to: string,
  outages: { from: string; to: string; lost: number }[],
): ProberFigures {
  const pair = (family: "ipv4" | "ipv6") => ({
    from,
    to,
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
  it("reads Felix's IPv6 route deletions, not BIRD's, neighbours, link-local or IPv4 routes", function () {
    const d = ipv6RouteDeletions("node-1", LOG);
    expect(d.map((x) => x.line.slice(1, 27))).to.deep.equal([
      "2026-12-04T13:20:28.891270",
      "2026-12-04T13:20:28.891375",
      "2026-12-04T13:20:28.891454",
    ]);
    expect(d[0]?.at).to.equal(Date.parse("2026-12-04T13:20:28.891"));
  });

  it("puts an IPv6 outage down to a deletion on the sending or the receiving node within a second", function () {
    const d = ipv6RouteDeletions("node-1", LOG);
    const near = [{ from: at("13:20:28.880"), to: at("13:20:28.930"), lost: 5 }];
    expect(unexplainedIpv6Outages(report("node-2.host.v6", "node-1.v6", near), d)).to.deep.equal({
      outages: [],
      complete: true,
    });
    expect(unexplainedIpv6Outages(report("node-1.v6", "node-3.v6", near), d).outages).to.deep.equal(
      [],
    );
  });

  it("leaves unexplained an outage far from every deletion, or between two other nodes", function () {
    const d = ipv6RouteDeletions("node-1", LOG);
    const far = [{ from: at("13:20:31.000"), to: at("13:20:31.050"), lost: 5 }];
    expect(unexplainedIpv6Outages(report("node-2.v6", "node-1.v6", far), d).outages).to.have.length(
      1,
    );
    const near = [{ from: at("13:20:28.880"), to: at("13:20:28.930"), lost: 5 }];
    expect(
      unexplainedIpv6Outages(report("node-2.host.v6", "node-3.v6", near), d).outages,
    ).to.deep.equal([
      `node-2.host.v6 -> node-3.v6: 5 lost from ${near[0]?.from} to ${near[0]?.to}`,
    ]);
  });

  it("maps the prober's agent names, IPv4 and IPv6, pod and host, to their node", function () {
    expect(["node-2.host.v6", "node-2.v6", "node-2.host", "node-2"].map(nodeOfAgent)).to.deep.equal(
      Array(4).fill("node-2"),
    );
  });

  it("says when the prober's outages do not account for every lost probe", function () {
    const p = report("node-2.v6", "node-1.v6", [
      { from: at("13:20:28.880"), to: at("13:20:28.930"), lost: 5 },
    ]);
    (p.pairs[0] as { lost: number }).lost = 500;
    expect(unexplainedIpv6Outages(p, ipv6RouteDeletions("node-1", LOG)).complete).to.equal(false);
  });
});
