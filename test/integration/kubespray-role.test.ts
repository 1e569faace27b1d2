// Kubespray's real Calico role against the lab (test/support/kubespray.ts): Kubespray v2.19.1's
// roles/network_plugin/calico with its defaults (VXLAN, backend vxlan) applied to a cluster installed with IPIP
// Always and backend bird, as Kubespray v2.18 left it (Kubespray issue #8691).
// - With this project's preflight first in the same ansible-playbook run, as the README tells a fork, the play
//   stops before Kubespray's role writes anything: the resourceVersion of every Calico object, calico-config and
//   the DaemonSet is unchanged.
// - Without it, the same role is the negative control: it rewrites the pool in place, switches calico-config to
//   vxlan and rolls calico-node, and the prober measures the outage.

import { expect } from "chai";
import type { Lab } from "../support/lab.js";
import {
  calicoctl,
  everyResourceVersion,
  kubectl,
  labDown,
  labUp,
  nodesStatus,
  readProber,
  resetProber,
  startProber,
  waitUntil,
} from "../support/lab.js";
import { runKubespray } from "../support/kubespray.js";

const BLOCKED = "spec.ipipMode: cluster has Always, inventory (calico_ipip_mode) says Never";

async function podUids(lab: Lab): Promise<string[]> {
  const pods = JSON.parse(
    await kubectl(
      lab,
      "-n",
      "kube-system",
      "get",
      "pods",
      "-l",
      "k8s-app=calico-node",
      "-o",
      "json",
    ),
  ) as { items: { metadata: { uid: string } }[] };
  return pods.items.map((p) => p.metadata.uid).sort();
}

describe("Kubespray v2.19.1's real Calico role on a cluster with IPIP Always and backend bird", function () {
  this.timeout(900000);
  let lab: Lab;
  before(async () => {
    lab = await labUp("kubespray-2.18");
    await waitUntil("every calico-node pod ready with BIRD", () => {
      const s = nodesStatus(lab).summary;
      return s.podsReady === 3 && s.birdRunning === 3;
    });
    await startProber(lab);
  });
  after(labDown);

  it("the preflight, first in the same ansible-playbook run, stops the play before Kubespray writes anything", async () => {
    const before = await everyResourceVersion(lab);
    expect(Object.keys(before).length, "objects compared").to.be.greaterThan(20);
    const r = await runKubespray(lab, {
      release: "v2.19.1",
      plays: ["preflight", "calico"],
    });
    expect(r.exitCode, r.output).to.equal(2);
    expect(r.output).to.include(BLOCKED);
    expect(r.output, "no task of Kubespray's Calico play ran").not.to.match(
      /TASK \[(network_plugin\/calico|Stand-in)/,
    );
    expect(r.recap["node-1"], r.output).to.include({ failed: 1, changed: 0 });
    expect(await everyResourceVersion(lab)).to.deep.equal(before);
  });

  it("without it, the same role switches the pool in place and rolls calico-node: the negative control", async () => {
    const uids = await podUids(lab);
    await resetProber(lab);
    const r = await runKubespray(lab, { release: "v2.19.1" });
    expect(r.exitCode, r.output).to.equal(0);
    expect(r.output).to.match(
      /TASK \[network_plugin\/calico : Calico \| Configure calico network pool\]/,
    );
    await waitUntil(
      "calico-node rolled with backend vxlan",
      () => {
        const s = nodesStatus(lab).summary;
        return s.podsReady === 3 && s.birdRunning === 0 && s.vxlanTunnelAddrs === 3;
      },
      180000,
    );
    const during = await readProber(lab);
    const pool = JSON.parse(
      await calicoctl(lab, "get", "ippool", "default-pool", "-o", "json"),
    ) as {
      spec: { ipipMode: string; vxlanMode: string };
    };
    expect(pool.spec, "Kubespray merged its defaults into the live pool").to.include({
      ipipMode: "Never",
      vxlanMode: "Always",
    });
    const backend = await kubectl(
      lab,
      "-n",
      "kube-system",
      "get",
      "configmap",
      "calico-config",
      "-o",
      "jsonpath={.data.calico_backend}",
    );
    expect(backend).to.equal("vxlan");
    const rolled = await podUids(lab);
    expect(
      rolled.filter((u) => uids.includes(u)),
      "every calico-node pod replaced",
    ).to.deep.equal([]);
    console.log(
      `      Kubespray v2.19.1's role on the IPIP/bird cluster: ${during.lost} of ${during.sent} probes lost, ` +
        `longest gap ${during.longest_gap_ms} ms`,
    );
    expect(during.lost, "probes lost while Kubespray's role ran").to.be.greaterThan(0);
    expect(during.longest_gap_ms, "an outage, not jitter").to.be.greaterThan(1000);
    // It ends on a working VXLAN data plane: the breakage is the outage on the way.
    await resetProber(lab);
    await new Promise((r) => setTimeout(r, 3000));
    const settled = await readProber(lab);
    expect(settled.lost, "no loss once calico-node runs on VXLAN").to.equal(0);
    expect(settled.sent).to.be.greaterThan(500);
  });
});
