// calico_encap_migrate's option values that are wrong whatever the cluster holds: refused before the first read,
// with nothing run; and a tunnel pool CIDR written as Calico stores it, whatever its spelling.

import { expect } from "chai";
import { LocalRunner } from "../../../src/cluster/runner.js";
import type { HumanIo } from "../../../src/human/main.js";
import { runHuman } from "../../../src/human/main.js";
import { targetFromOptions } from "../../../src/calico/shared/kubespray.js";
import { canonicalCidr, parseCidr } from "../../../src/calico/shared/cidr.js";

function io(): HumanIo & { out: string; err: string } {
  const c = {
    out: "",
    err: "",
    stdout: { write: (s: string) => (c.out += s), isTTY: false },
    stderr: { write: (s: string) => (c.err += s), isTTY: false },
    env: {},
    runner: new LocalRunner(),
    onInterrupt: () => () => undefined,
  };
  return c;
}

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
  for (const bad of ["10.0.0.0/33", " 172.30.0.0/24", "172.030.0.0/24", "fd00::/120"])
    it(`refuses tunnel_pool_cidr '${bad}' before reading the cluster, where kubectl does not even exist`, async () => {
      const c = io();
      const code = await runHuman(
        "migrate",
        [
          "--tunnel-pool-cidr",
          bad,
          "--check",
          "--kubectl",
          "/nonexistent/kubectl",
          "--calicoctl",
          "/nonexistent/calicoctl.sh",
        ],
        c,
      );
      expect(code, c.out + c.err).to.equal(1);
      expect(c.out + c.err).to.match(/Refused before reading the cluster: tunnel_pool_cidr/);
      expect(c.out + c.err).to.not.match(/nonexistent/);
    });

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
