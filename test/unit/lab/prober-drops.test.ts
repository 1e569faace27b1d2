import { expect } from "chai";
import { rcvbufErrors, report } from "../../lab/prober/control.js";
import { udp6RcvbufErrors, udpRcvbufErrors } from "../../lab/prober/snmp.js";
import type { ProberSummary } from "../../lab/prober/types.js";
import { proberSummary } from "../../support/builders.js";
import { proberDrops } from "../../support/lab.js";

// /proc/net/snmp's Udp lines as this machine's kernel (6.18) writes them, RcvbufErrors the fifth column.
const SNMP = [
  "Ip: Forwarding DefaultTTL InReceives",
  "Ip: 1 64 120",
  "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors",
  "Udp: 5210 0 7 5301 7 0 0 0 0",
  "UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors",
  "UdpLite: 0 0 0 0 99 0 0 0 0",
  "",
].join("\n");

const agent = (
  node: string,
  family: "ipv4" | "ipv6",
  netns: string | undefined,
  drops: number | null | undefined,
): ProberSummary =>
  proberSummary(node, family, [], {
    ...(netns === undefined ? {} : { netns }),
    ...(drops === undefined ? {} : { udp_rcvbuf_errors: drops }),
  });

describe("lab prober: datagrams a stalled agent's socket dropped (UDP RcvbufErrors)", () => {
  it("reads RcvbufErrors from the Udp lines of /proc/net/snmp, not UdpLite's", () => {
    expect(udpRcvbufErrors(SNMP)).to.equal(7);
  });

  it("says nothing rather than a wrong count when the lines are not there", () => {
    expect(udpRcvbufErrors("Ip: Forwarding\nIp: 1\n")).to.equal(null);
    expect(udpRcvbufErrors("Udp: InDatagrams NoPorts\nUdp: 1 2\n")).to.equal(null);
    expect(udp6RcvbufErrors("Udp6InDatagrams 3\n")).to.equal(null);
  });

  it("reads Udp6RcvbufErrors from /proc/net/snmp6", () => {
    expect(
      udp6RcvbufErrors(
        "Udp6InDatagrams   12\nUdp6RcvbufErrors                \t4\nUdp6SndbufErrors 0\n",
      ),
    ).to.equal(4);
  });

  it("counts a namespace once per family, whatever number of agents share it", () => {
    expect(
      rcvbufErrors([
        agent("node-1", "ipv4", "net:[1]", 3),
        agent("node-1.host", "ipv4", "net:[1]", 3),
        agent("node-1.v6", "ipv6", "net:[1]", 2),
        agent("node-2", "ipv4", "net:[2]", 5),
      ]),
    ).to.equal(10);
  });

  it("is null when no agent says (agents older than the field), and in the report", () => {
    expect(rcvbufErrors([agent("node-1", "ipv4", undefined, undefined)])).to.equal(null);
    expect(report([agent("node-1", "ipv4", "net:[1]", 0)]).rcvbuf_errors).to.equal(0);
    expect(report([agent("node-1", "ipv4", "net:[1]", 0)]).rcvbuf_bytes).to.equal(null);
    expect(
      report([
        { ...agent("node-1", "ipv4", "net:[1]", 0), rcvbuf_bytes: 8388608 },
        { ...agent("node-2", "ipv4", "net:[2]", 0), rcvbuf_bytes: 131072 },
      ]).rcvbuf_bytes,
      "the smallest buffer granted",
    ).to.equal(131072);
  });

  it("a loss message names the agents' drops when the report has them, and nothing otherwise", () => {
    const r = report([agent("node-1", "ipv4", "net:[1]", 6)]);
    expect(proberDrops(r)).to.include("dropped 6 datagram(s)").and.include("RcvbufErrors");
    expect(proberDrops(r.families.ipv4)).to.equal("");
    expect(proberDrops(report([agent("node-1", "ipv4", undefined, undefined)]))).to.equal("");
  });
});
