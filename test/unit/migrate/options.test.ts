// A tunnel pool CIDR written as Calico stores it, whatever its spelling (a CIDR option that is none is refused with
// the options: test/unit/protocol/cidr-options.test.ts).

import { expect } from "chai";
import { targetFromOptions } from "../../../src/calico/shared/kubespray.js";
import { canonicalCidr, parseCidr } from "../../../src/calico/shared/cidr.js";

const BASE = {
  ipip_mode: "Never" as const,
  vxlan_mode: "Always" as const,
  network_backend: "vxlan" as const,
  pool_name: "default-pool",
  extra_pools: [],
  ipv6_stack: false,
  vxlan_mode_ipv6: "Never" as const,
};

describe("calico_encap_migrate's option values", () => {
  it("writes the tunnel pool's CIDR as Calico stores it: host bits zeroed", () => {
    expect(
      targetFromOptions({ ...BASE, tunnel_pool_cidr: "172.30.0.7/24" }).tunnelPoolCidr,
    ).to.equal("172.30.0.0/24");
    expect(
      targetFromOptions({ ...BASE, tunnel_pool_cidr: "172.30.0.0/24" }).tunnelPoolCidr,
    ).to.equal("172.30.0.0/24");
  });

  it("reads CIDRs as Go's net.ParseCIDR does: no leading zero; prints them canonically", () => {
    expect(parseCidr("172.030.0.0/24")).to.equal(null);
    expect(parseCidr("10.0.0.0/8")).to.not.equal(null);
    expect(canonicalCidr("10.1.2.3/8")).to.equal("10.0.0.0/8");
    expect(canonicalCidr("fd85:ee78:d8a6:8607:0:0:1:0/112")).to.equal(
      "fd85:ee78:d8a6:8607::1:0/112",
    );
    expect(canonicalCidr("fd00:0:0:1:0:0:0:0/64")).to.equal("fd00:0:0:1::/64");
    expect(canonicalCidr("::/0")).to.equal("::/0");
    expect(canonicalCidr("fd00:1:0:2:3:0:0:4/128"), "the longest zero run").to.equal(
      "fd00:1:0:2:3::4/128",
    );
  });
});
