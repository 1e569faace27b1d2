// The BIRD-path fallback's rules are scoped to the pools' CIDRs (issue 52 item 2): a rule `lookup main
// suppress_prefixlength 0` for every destination would answer, from main, every destination main holds more than its
// default route for, before the host's own rules below it (source routing on a two-NIC host: `ip rule add from <eth1
// address> lookup 100` lands at 32765). The role's fallback_install and fallback_remove run for real, ansible-playbook
// inside a network namespace of their own (the kernel's rules and routes, nothing stood in for), with a host that
// has such a rule.

import { expect } from "chai";
import { execa } from "execa";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { ansibleEnv, REPO, VENV_BIN } from "../support/ansible.js";

const NS = `calico-encap-fr-${process.pid}`;
const ip = async (...args: string[]): Promise<string> =>
  (await execa("ip", ["-n", NS, ...args])).stdout;

/** The host: eth0 (main's default and its route to 203.0.113.0/24), eth1 with its own table 100 and rule. */
async function host(): Promise<void> {
  await execa("ip", ["netns", "add", NS]);
  const run = (line: string) => ip(...line.split(" "));
  for (const line of [
    "link set lo up",
    // veth pairs (this kernel has no dummy devices), both ends up for the carrier; Felix's VXLAN device.
    "link add eth0 type veth peer name eth0-peer",
    "link add eth1 type veth peer name eth1-peer",
    "addr add 192.0.2.10/24 dev eth0",
    "addr add 198.51.100.10/24 dev eth1",
    "link add vxlan.calico type vxlan id 4096 dstport 4789 dev eth0",
    "link set eth0-peer up",
    "link set eth1-peer up",
    "link set eth0 up",
    "link set eth1 up",
    "link set vxlan.calico up",
    "route add default via 192.0.2.1 dev eth0",
    "route add 203.0.113.0/24 via 192.0.2.1 dev eth0",
    // BIRD's route to node-2's block: main has it; node-3's block has none (the hand-over's gap).
    "route add 10.233.65.0/24 via 192.0.2.11 dev eth0 proto bird",
    // The host's source routing: from eth1's address, table 100.
    "route add 203.0.113.0/24 via 198.51.100.1 dev eth1 table 100",
    "rule add priority 32000 from 198.51.100.10 lookup 100",
  ])
    await run(line);
}

/** The role's fallback_install or fallback_remove on this namespace, ansible-playbook run inside it. */
async function role(tasks: "fallback_install" | "fallback_remove"): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-fallback-rules-"));
  writeFileSync(
    join(dir, "play.yml"),
    stringify([
      {
        hosts: "localhost",
        gather_facts: false,
        vars: {
          calico_encap_fallback_node: "node-1",
          calico_encap_fallback_cidrs: ["10.233.64.0/18"],
          // One list for the cluster: node-1's own block is not installed on node-1.
          calico_encap_fallback_routes: [
            { dst: "10.233.64.0/24", via: "172.30.0.1", dev: "vxlan.calico", onlink: true, peer: "node-1" },
            { dst: "10.233.65.0/24", via: "172.30.0.2", dev: "vxlan.calico", onlink: true, peer: "node-2" },
            { dst: "10.233.66.0/24", via: "172.30.0.3", dev: "vxlan.calico", onlink: true, peer: "node-3" },
          ],
          // This host alone (the coverage across hosts is fallback-coverage.test's).
          calico_encap_fallback_nodes: ["node-1"],
        },
        tasks: [{ "ansible.builtin.include_role": { name: "calico_encap", tasks_from: tasks } }],
      },
    ]),
  );
  const r = await execa(
    "ip",
    [
      "netns",
      "exec",
      NS,
      join(VENV_BIN, "ansible-playbook"),
      "-i",
      "localhost,",
      "-c",
      "local",
      "-e",
      `ansible_python_interpreter=${join(VENV_BIN, "python")}`,
      join(dir, "play.yml"),
    ],
    { reject: false, all: true, env: ansibleEnv({ ANSIBLE_ROLES_PATH: join(REPO, "ansible", "roles") }) },
  );
  const out = r.all ?? "";
  expect(r.exitCode, out).to.equal(0);
  return out;
}

/** The kernel's choice for a destination, from an address of the host. */
const via = async (dst: string, from?: string): Promise<string> =>
  ip("-4", "route", "get", dst, ...(from ? ["from", from] : []));
const fallbackRules = async (): Promise<string[]> =>
  (await ip("-4", "rule", "show"))
    .split("\n")
    .filter((l) => /^104[01]:/.test(l))
    .map((l) => l.replace(/\s+/g, " ").trim());

describe("the BIRD-path fallback's rules, scoped to the pools' CIDRs, on a host with rules of its own", function () {
  this.timeout(180000);
  before(async () => {
    await execa("ip", ["netns", "del", NS], { reject: false });
    await host();
  });
  after(async () => {
    await execa("ip", ["netns", "del", NS], { reject: false });
  });

  it("can fail: an unscoped rule (the earlier release's) takes the host's source-routed destination into main", async () => {
    expect(await via("203.0.113.5", "198.51.100.10")).to.match(/dev eth1 table 100/);
    await ip("-4", "rule", "add", "priority", "1040", "lookup", "main", "suppress_prefixlength", "0");
    expect(await via("203.0.113.5", "198.51.100.10")).to.match(/via 192\.0\.2\.1 dev eth0/);
  });

  it("installs a rule pair to the pool's CIDR, and removes the earlier release's unscoped rule", async () => {
    const out = await role("fallback_install");
    expect(out).to.match(/stale rules to delete \[.?priority 1040 lookup main suppress_prefixlength 0.?\]/);
    expect(await fallbackRules()).to.deep.equal([
      "1040: from all to 10.233.64.0/18 lookup main suppress_prefixlength 0",
      "1041: from all to 10.233.64.0/18 lookup 1041",
    ]);
  });

  it("leaves the host's own rule in charge of every other destination", async () => {
    expect(await via("203.0.113.5", "198.51.100.10")).to.match(/via 198\.51\.100\.1 dev eth1 table 100/);
    expect(await via("203.0.113.5")).to.match(/via 192\.0\.2\.1 dev eth0/);
  });

  it("routes a block main has no route for through the fallback, and one it has through main", async () => {
    // From the cluster's one list, the other Nodes' blocks: not node-1's own (10.233.64.0/24).
    expect(
      (await ip("-4", "route", "show", "table", "1041")).split("\n").map((l) => l.split(" ")[0]),
    ).to.deep.equal(["10.233.65.0/24", "10.233.66.0/24"]);
    expect(await via("10.233.66.7")).to.match(/via 172\.30\.0\.3 dev vxlan\.calico table 1041/);
    expect(await via("10.233.65.7")).to.match(/via 192\.0\.2\.11 dev eth0/);
  });

  it("a second install changes nothing", async () => {
    const out = await role("fallback_install");
    expect(out).to.match(/changed=0/);
  });

  it("removes exactly what it added: the rules, the routes of its protocol, and nothing of the host's", async () => {
    await role("fallback_remove");
    expect(await fallbackRules()).to.deep.equal([]);
    expect(await ip("-4", "route", "show", "table", "1041")).to.equal("");
    expect(await ip("-4", "rule", "show")).to.match(/32000:\s+from 198\.51\.100\.10 lookup 100/);
    expect(await via("203.0.113.5", "198.51.100.10")).to.match(/dev eth1 table 100/);
    expect(await via("10.233.65.7")).to.match(/via 192\.0\.2\.11 dev eth0/);
  });
});
