// One scaled case in make test (issue 40): the check and one migration poll against 100 nodes (SCALE_NODES; make
// test-full runs it at 1000 as well), all but 3 of them simulated on the lab's real control plane
// (test/lab/kwok-nodes.sh: kwok keeps them and their calico-node pods Ready, Calico's own allocator gives their tunnel
// addresses). It asserts what is read, never the time it took: every node's tunnel address and calico-node readiness,
// as the whole objects say them. make bench-scale measures.

import { expect } from "chai";
import { execa } from "execa";
import { join } from "node:path";
import { CALICO_NODE_PODS, observeForMigration } from "../../src/cluster/observe-migration.js";
import { LocalRunner } from "../../src/cluster/runner.js";
import type { Lab } from "../support/lab.js";
import { kubectl, labDown, labUp } from "../support/lab.js";
import { REPO } from "../support/ansible.js";

const KWOK_NODES = join(REPO, "test", "lab", "kwok-nodes.sh");
const NODES = Number(process.env.SCALE_NODES ?? "100");
const TUNNEL = "projectcalico.org/IPv4IPIPTunnelAddr";

interface Item {
  metadata: { name: string; annotations?: Record<string, string>; deletionTimestamp?: string };
  spec?: { nodeName?: string };
  status?: { conditions?: { type: string; status: string }[] };
}

async function list(lab: Lab, ...args: string[]): Promise<Item[]> {
  return (JSON.parse(await kubectl(lab, ...args, "-o", "json")) as { items: Item[] }).items;
}

describe(`${NODES} nodes, ${NODES - 3} of them simulated by kwok`, function () {
  // Growing to 1000 nodes took 7-10 min on the lab, most of it Calico's allocator run once per node (FIGURES.md).
  this.timeout(Math.max(900000, NODES * 2400));
  let lab: Lab;
  // The answers, read whole: each Node's IPIP tunnel address, and which nodes have a Ready calico-node pod.
  let tunnels: Record<string, string | null>;
  let ready: Record<string, boolean>;

  before(async () => {
    lab = await labUp("kubespray-2.18");
    // kwok-nodes.sh finds the lab by LAB_STATE: the default slot's lab has none in the environment.
    await execa("bash", [KWOK_NODES, "up", String(NODES)], {
      stdio: "inherit",
      env: { LAB_STATE: lab.state },
    });
    tunnels = Object.fromEntries(
      (await list(lab, "get", "nodes")).map((n) => [
        n.metadata.name,
        n.metadata.annotations?.[TUNNEL] ?? null,
      ]),
    );
    ready = Object.fromEntries(Object.keys(tunnels).map((n) => [n, false]));
    for (const p of await list(lab, ...CALICO_NODE_PODS)) {
      const isReady = p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
      if (p.spec?.nodeName && isReady && !p.metadata.deletionTimestamp)
        ready[p.spec.nodeName] = true;
    }
  });

  after(async () => {
    if (lab)
      await execa("bash", [KWOK_NODES, "stop"], { reject: false, env: { LAB_STATE: lab.state } });
    await labDown();
  });

  it("has what the poll is checked against: every node with a tunnel address and a ready calico-node", () => {
    expect(Object.keys(tunnels)).to.have.length(NODES);
    expect(Object.entries(tunnels).filter(([, t]) => t === null)).to.deep.equal([]);
    expect(Object.entries(ready).filter(([, r]) => !r)).to.deep.equal([]);
  });

  it("the check passes with the lab's inventory", async () => {
    const r = await execa(
      "node",
      [
        join(REPO, "dist", "src", "cli.js"),
        "check",
        ...["--ipip-mode", "Always", "--vxlan-mode", "Never", "--network-backend", "bird"],
        ...["--pool-blocksize", "24", "--calicoctl", lab.calicoctlSh, "--kubectl", lab.kubectl],
        ...["--kubeconfig", lab.kubeconfig, "--json"],
      ],
      { reject: false },
    );
    expect(r.exitCode, r.stdout + r.stderr).to.equal(0);
    expect((JSON.parse(r.stdout) as { failed?: boolean }).failed ?? false).to.equal(false);
  });

  for (const client of ["calicoctl", "kubectl"] as const) {
    it(`one poll sees every node's tunnel address and calico-node readiness (${client})`, async () => {
      const obs = await observeForMigration(new LocalRunner(), {
        client,
        datastore: "kdd",
        calicoctlPath: lab.calicoctlSh,
        kubectlPath: lab.kubectl,
        kubeconfig: lab.kubeconfig,
        timeoutSeconds: 120,
      });
      expect(Object.fromEntries(obs.nodes.map((n) => [n.name, n.tunnel.ipip]))).to.deep.equal(
        tunnels,
      );
      expect(Object.fromEntries(obs.nodes.map((n) => [n.name, n.calicoNodeReady]))).to.deep.equal(
        ready,
      );
      expect(obs.kubeNodes?.map((n) => n.name).sort()).to.deep.equal(Object.keys(tunnels).sort());
      expect(obs.rollout.desired).to.equal(NODES);
    });
  }
});
