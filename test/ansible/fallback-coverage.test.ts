// Every Node the fallback routes are for is a host of the play (issue 52 item 4): with --limit or a stale inventory a
// Node outside the play would cross the pool switch without its fallback, silently. The role's fallback_install on
// three local hosts in check mode (it reads the hosts' rules, changes nothing), one of them known by its
// kube_override_hostname, with routes from a cluster that has a fourth Node, and from one whose fifth Node holds every
// block (it needs no route, so it need not be a host).

import { expect } from "chai";
import { execa } from "execa";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { ansibleEnv, REPO, VENV_BIN } from "../support/ansible.js";

const route = (dst: string, via: string, peer: string) => ({
  dst,
  via,
  dev: "vxlan.calico",
  onlink: true,
  peer,
});

/** fallback_install on h1, h2 and h3 (h3's Node is node-3), in check mode, with these routes and Nodes. */
async function install(routes: unknown[], nodes: string[]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-fallback-coverage-"));
  writeFileSync(
    join(dir, "hosts.yml"),
    stringify({
      all: {
        vars: { ansible_connection: "local", ansible_python_interpreter: join(VENV_BIN, "python") },
        hosts: { h1: null, h2: null, h3: { kube_override_hostname: "node-3" } },
      },
    }),
  );
  writeFileSync(
    join(dir, "play.yml"),
    stringify([
      {
        hosts: "all",
        gather_facts: false,
        vars: {
          calico_encap_fallback_routes: routes,
          calico_encap_fallback_nodes: nodes,
          calico_encap_fallback_cidrs: ["10.233.64.0/18"],
        },
        tasks: [{ "ansible.builtin.include_role": { name: "calico_encap", tasks_from: "fallback_install" } }],
      },
    ]),
  );
  const r = await execa(
    join(VENV_BIN, "ansible-playbook"),
    ["-i", join(dir, "hosts.yml"), "--check", join(dir, "play.yml")],
    { reject: false, all: true, env: ansibleEnv({ ANSIBLE_ROLES_PATH: join(REPO, "ansible", "roles") }) },
  );
  return `exit ${r.exitCode}\n${r.all ?? ""}`;
}

const READ = "Read the host's IPv4 routing rules";
/** One list for the cluster (issue 52 item 3): h1's block and h2's, which every other Node routes to. */
const ROUTES = [route("10.233.64.0/24", "172.30.0.1", "h1"), route("10.233.65.0/24", "172.30.0.2", "h2")];
const NODES = ["h1", "h2", "node-3"];

describe("the BIRD-path fallback on every Node that needs it, or on none", function () {
  this.timeout(180000);

  it("refuses, before any host reads or changes anything, when a Node that needs routes is not a host of the play", async () => {
    const out = await install(ROUTES, [...NODES, "node-4"]);
    expect(out).to.match(/^exit 2/);
    expect(out).to.include(
      "Node(s) node-4 need fallback routes (calico_encap_migrate returned routes to other Nodes' blocks for them) but no host of this play is that Node",
    );
    expect(out).to.include("Nothing was changed on any host, and the pool has not switched.");
    expect(out).not.to.include(READ);
  });

  it("can fail: every Node a host (node-3 by h3's kube_override_hostname) goes on to the reads", async () => {
    const out = await install(ROUTES, NODES);
    expect(out).to.match(/^exit 0/);
    expect(out).to.include(READ);
    expect(out).to.include("Fallback on node-3: routes to add");
  });

  it("a Node that needs no routes (the one that holds every block) need not be a host", async () => {
    const out = await install([route("10.233.66.0/24", "172.30.0.5", "node-5")], [...NODES, "node-5"]);
    expect(out).to.match(/^exit 0/);
    expect(out).to.include("Fallback on h1: routes to add ['10.233.66.0/24 via 172.30.0.5 dev vxlan.calico']");
  });
});
