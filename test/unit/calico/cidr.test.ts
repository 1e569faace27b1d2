// CIDRs compared as networks, never as strings, and never passed for "no overlap" when they are none (issue 37 item
// 4): IPv6 in any spelling Go's net.ParseCIDR reads, IPv4-embedded forms included, and a node's IPv4-mapped address
// as the IPv4 address it is.

import { expect } from "chai";
import { checkPools } from "../../../src/calico/check/check.js";
import { plan } from "../../../src/calico/plan/plan.js";
import type { Target } from "../../../src/calico/shared/observation.js";
import {
  canonicalCidr,
  cidrsOverlap,
  containsAddress,
  parseCidr,
  sameCidr,
} from "../../../src/calico/shared/cidr.js";
import { inventory, live218, PINNED_218, pool } from "../../support/builders.js";
import { start, target } from "../../support/sim-cluster.js";

const KUBESPRAY: Target = {
  ...target("VXLAN Always", "vxlan"),
  clusterCidrs: [
    { variable: "kube_pods_subnet", cidr: "10.233.64.0/18" },
    { variable: "kube_service_addresses", cidr: "10.233.0.0/18" },
  ],
};

describe("CIDRs", () => {
  it("compares IPv6 networks, not strings: equivalent spellings are one network (Kubespray #13550)", () => {
    const spellings = ["2001:db8::/64", "2001:0db8:0:0::/64", "2001:DB8:0:0:0:0:0:0/64"];
    for (const a of spellings)
      for (const b of spellings) {
        expect(sameCidr(a, b), `${a} = ${b}`).to.equal(true);
        expect(cidrsOverlap(a, b), `${a} overlaps ${b}`).to.equal(true);
      }
    expect(sameCidr("2001:db8::/64", "2001:db8::/65")).to.equal(false);
    // The check: the live IPv6 pool and the inventory, spelled differently, are the same network.
    const live = live218({
      pools: [
        pool(),
        pool({
          name: "default-pool-ipv6",
          cidr: "2001:db8::/64",
          ipVersion: 6,
          blockSize: 122,
          ipipMode: "Never",
          vxlanMode: "Always",
          natOutgoing: false,
        }),
      ],
    });
    const r = checkPools(
      inventory({ ...PINNED_218, ipv6_stack: true, pool_cidr_ipv6: "2001:0db8:0:0::/64" }),
      live,
    );
    expect(r.findings.find((f) => f.id === "pool.cidr")).to.equal(undefined);
  });

  it("reads IPv4-embedded IPv6 as Go does, and nothing beyond it", () => {
    expect(canonicalCidr("::ffff:10.0.0.0/104")).to.equal("::ffff:a00:0/104");
    expect(sameCidr("::ffff:10.0.0.0/104", "0:0:0:0:0:ffff:a00:0/104")).to.equal(true);
    expect(canonicalCidr("64:ff9b::192.0.2.33/128")).to.equal("64:ff9b::c000:221/128");
    expect(canonicalCidr("1:2:3:4:5:6:1.2.3.4/128")).to.equal("1:2:3:4:5:6:102:304/128");
    for (const bad of [
      "::ffff:10.0.0.256/128",
      "::ffff:010.0.0.1/128",
      "1:2:3:4:5:6:7:1.2.3.4/128",
      "::1.2.3.4:5/128",
      "1.2.3.4::/128",
    ])
      expect(parseCidr(bad), bad).to.equal(null);
  });

  it("takes a node's IPv4-mapped address as the IPv4 address it maps, as Go's IPNet.Contains does", () => {
    expect(containsAddress("10.0.0.0/8", "::ffff:10.0.0.1")).to.equal(true);
    expect(containsAddress("172.30.0.0/24", "::ffff:10.0.0.1")).to.equal(false);
    expect(containsAddress("fd00::/8", "::ffff:10.0.0.1")).to.equal(false);
    const from = start("IPIP Always", "bird", "explicit");
    const mapped = {
      ...from,
      nodes: from.nodes.map((n, i) => ({ ...n, addresses: [`::ffff:172.30.0.${11 + i}`] })),
    };
    const p = plan(mapped, { ...KUBESPRAY, tunnelPoolCidr: "172.30.0.0/24" });
    expect(p.ok ? "planned" : p.reason).to.match(
      /contains the address of node node-1 \(::ffff:172\.30\.0\.11\)/,
    );
  });

  it("never takes a value that is no CIDR for one that overlaps nothing", () => {
    for (const [a, b] of [
      ["banana", "10.0.0.0/8"],
      ["10.0.0.0/8", "10.233.64.0/33"],
    ] as const)
      expect(() => cidrsOverlap(a, b), `${a} ${b}`).to.throw(
        /is not an IPv4 or IPv6 network in CIDR notation .* so whether it overlaps .* cannot be told/,
      );
    // The tunnel pool against a pod network with a typo: refused, never planned.
    const from = start("IPIP Always", "bird", "explicit");
    const typo: Target = {
      ...KUBESPRAY,
      tunnelPoolCidr: "172.30.0.0/24",
      clusterCidrs: [{ variable: "kube_pods_subnet", cidr: "10.233.64.0/33" }],
    };
    expect(() => plan(from, typo)).to.throw(/'10\.233\.64\.0\/33' is not an IPv4 or IPv6 network/);
    // A pod network spelled with host bits is the same network.
    const hostBits: Target = {
      ...KUBESPRAY,
      tunnelPoolCidr: "10.240.1.0/24",
      clusterCidrs: [{ variable: "kube_pods_subnet", cidr: "10.240.0.7/16" }],
    };
    const p = plan(from, hostBits);
    expect(p.ok ? "planned" : p.reason).to.match(
      /^tunnel_pool_cidr 10\.240\.1\.0\/24 overlaps kube_pods_subnet 10\.240\.0\.7\/16/,
    );
  });
});
