// Kubespray's real Calico role against the lab (test/support/kubespray.ts), on clusters Kubespray's own role
// installed as lab.sh up starts the lab (the kubespray-2.18 profile: v2.18.2 with its defaults; the uninstalled
// profile with LAB_KUBESPRAY_INSTALL and LAB_KUBESPRAY_VARS: any release, any inventory).
// - Kubespray v2.18.2 installs IPIP Always with backend bird; v2.19.1's role with its defaults (VXLAN, backend
//   vxlan) is the upgrade of Kubespray issue #8691. With this project's preflight first in the same
//   ansible-playbook run, as the README tells a fork, the play stops before Kubespray's role writes anything.
//   Without it, the same role is the negative control: it rewrites the pool in place, switches calico-config to
//   vxlan and rolls calico-node, and the prober measures the outage.
// - Kubespray v2.19.1 (and v2.31.0) installs IPIP Always with backend bird (its inventory pinned), calico_encap_migrate moves
//   the cluster to v2.19.1's defaults, and v2.19.1's role with those defaults then changes nothing: the same
//   calico-node pods and ControllerRevision, the same FelixConfiguration, IPPools, BGPConfiguration and
//   calico-config, and no probe lost.

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
import { runKubespray, type KubesprayRelease } from "../support/kubespray.js";

const BLOCKED = "spec.ipipMode: cluster has Always, inventory (calico_ipip_mode) says Never";
/** The inventory of a user who kept IP-in-IP and BIRD (the check's pin_vars on a v2.18 cluster). */
const IPIP_PINNED = {
  calico_ipip_mode: "Always",
  calico_vxlan_mode: "Never",
  calico_network_backend: "bird",
};

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

async function controllerRevisions(lab: Lab): Promise<string[]> {
  const list = JSON.parse(
    await kubectl(lab, "-n", "kube-system", "get", "controllerrevisions", "-o", "json"),
  ) as { items: { metadata: { name: string }; revision: number }[] };
  return list.items.map((r) => `${r.metadata.name}@${r.revision}`).sort();
}

/**
 * The lab with Calico as a Kubespray release's real role installs it (lab.sh up runs it: the kubespray-2.18 profile
 * is v2.18.2's install with its defaults, the uninstalled profile with LAB_KUBESPRAY_INSTALL any release's), every
 * calico-node Ready with BIRD, the prober running and lossless.
 */
async function installedBy(release: KubesprayRelease, vars: Record<string, unknown>): Promise<Lab> {
  const lab =
    release === "v2.18.2" && Object.keys(vars).length === 0
      ? await labUp("kubespray-2.18")
      : await labUp("uninstalled", 3, undefined, {
          LAB_KUBESPRAY_INSTALL: release,
          LAB_KUBESPRAY_VARS: JSON.stringify(vars),
        });
  expect(
    nodesStatus(lab).summary,
    `BIRD on every node, as Kubespray ${release} installed it`,
  ).to.include({
    podsReady: 3,
    birdRunning: 3,
  });
  await startProber(lab);
  await resetProber(lab);
  await new Promise((r) => setTimeout(r, 2000));
  const steady = await readProber(lab);
  expect(steady.lost, `no loss on the cluster Kubespray ${release} installed`).to.equal(0);
  expect(steady.sent).to.be.greaterThan(500);
  return lab;
}

describe("Kubespray v2.18.2 installs IPIP/bird; v2.19.1's real role with its defaults upgrades it", function () {
  this.timeout(900000);
  let lab: Lab;
  before(async () => {
    lab = await installedBy("v2.18.2", {});
  });
  after(labDown);

  it("v2.18.2's role installed the pool with IPIP Always and calico-config with bird", async () => {
    const pool = JSON.parse(
      await calicoctl(lab, "get", "ippool", "default-pool", "-o", "json"),
    ) as {
      spec: { ipipMode: string; vxlanMode: string; cidr: string };
    };
    expect(pool.spec).to.include({
      ipipMode: "Always",
      vxlanMode: "Never",
      cidr: "10.233.64.0/18",
    });
    expect(nodesStatus(lab).summary).to.include({ ipipTunnelAddrs: 3, vxlanTunnelAddrs: 0 });
  });

  it("the preflight, first in the same ansible-playbook run, stops the play before Kubespray writes anything", async () => {
    const before = await everyResourceVersion(lab);
    expect(Object.keys(before).length, "objects compared").to.be.greaterThan(20);
    const r = await runKubespray(lab, { release: "v2.19.1", plays: ["preflight", "calico"] });
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
      `      Kubespray v2.19.1's role on v2.18.2's IPIP/bird cluster: ${during.lost} of ${during.sent} probes lost, ` +
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

for (const release of ["v2.19.1", "v2.31.0"] as const)
  describe(`Kubespray ${release}'s next run after the migration to its defaults changes nothing`, function () {
    this.timeout(900000);
    let lab: Lab;
    before(async () => {
      lab = await installedBy(release, IPIP_PINNED);
    });
    after(labDown);

    it(`calico_encap migrates the cluster ${release} installed with IPIP pinned to ${release}'s defaults`, async () => {
      const r = await runKubespray(lab, {
        release,
        vars: { calico_encap_wait_sleep: 1 },
        plays: ["migrate"],
      });
      expect(r.exitCode, r.output).to.equal(0);
      expect(r.output).to.match(/"msg": "Migrated in \d+ step\(s\): /);
      expect(nodesStatus(lab).summary).to.include({ birdRunning: 0, vxlanTunnelAddrs: 3 });
    });

    it(`${release}'s role with its defaults then changes nothing and loses nothing`, async () => {
      const before = await everyResourceVersion(lab);
      const uids = await podUids(lab);
      const revisions = await controllerRevisions(lab);
      await resetProber(lab);
      const r = await runKubespray(lab, { release });
      expect(r.exitCode, r.output).to.equal(0);
      // Long enough for a roll to start: kube-controller-manager acts on a new template within a second.
      await new Promise((r) => setTimeout(r, 5000));
      const figures = await readProber(lab);
      const after = await everyResourceVersion(lab);
      const changed = Object.keys({ ...before, ...after }).filter((k) => before[k] !== after[k]);
      console.log(
        `      Kubespray ${release}'s next run: ${figures.lost} of ${figures.sent} probes lost; changed: ${changed.join(", ") || "nothing"}`,
      );
      expect(await podUids(lab), "the same calico-node pods").to.deep.equal(uids);
      expect(await controllerRevisions(lab), "no new ControllerRevision").to.deep.equal(revisions);
      const watched = changed.filter((k) =>
        /^(FelixConfiguration|IPPool|BGPConfiguration)\/|^ConfigMap\/kube-system\/calico-config$|^DaemonSet\//.test(
          k,
        ),
      );
      expect(
        watched,
        "FelixConfiguration, IPPools, BGPConfiguration, calico-config, the DaemonSet",
      ).to.deep.equal([]);
      expect(figures.lost, "probes lost").to.equal(0);
      expect(figures.sent).to.be.greaterThan(1000);
    });
  });
