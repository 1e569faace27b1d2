// Proof that the lab can fail: the 2022 upgrade replayed on a lab seeded as Kubespray 2.18 left it loses
// packets, allocates no VXLAN tunnel address and creates no vxlan.calico; Kubespray's documented four manual
// steps end with a working VXLAN data plane, and the loss they cost on the way is measured and reported.

import { expect } from "chai";
import type { Lab } from "../support/lab.js";
import { LAB_NODES, kubesprayDocumentedSteps } from "../support/kubespray-steps.js";
import {
  hasVxlanDevice,
  kubectl,
  labDown,
  labUp,
  nodeAnnotations,
  readProber,
  resetProber,
  nodesStatus,
  startProber,
  waitUntil,
} from "../support/lab.js";

const NODES = LAB_NODES;
const VXLAN_ADDR = "projectcalico.org/IPv4VXLANTunnelAddr";

async function settledLab(): Promise<Lab> {
  const lab = await labUp("kubespray-2.18");
  await waitUntil("every calico-node pod ready with BIRD", () => {
    const s = nodesStatus(lab).summary;
    return s.podsReady === 3 && s.birdRunning === 3;
  });
  await startProber(lab);
  await resetProber(lab);
  await new Promise((r) => setTimeout(r, 2000));
  const baseline = await readProber(lab);
  expect(baseline.lost, "no loss on the healthy IPIP lab").to.equal(0);
  expect(baseline.sent).to.be.greaterThan(500);
  return lab;
}

/** Kubespray 2.19's calico-node for backend vxlan: no bird probes, FELIX_VXLANVNI/PORT env (reference/kubespray-calico.md). */
const VXLAN_TEMPLATE = {
  spec: {
    template: {
      spec: {
        containers: [
          {
            name: "calico-node",
            livenessProbe: { exec: { command: ["/bin/calico-node", "-felix-live"] } },
            readinessProbe: { exec: { command: ["/bin/calico-node", "-felix-ready"] } },
            env: [
              { name: "FELIX_VXLANVNI", value: "4096" },
              { name: "FELIX_VXLANPORT", value: "4789" },
            ],
          },
        ],
      },
    },
  },
};

describe("the lab can fail", function () {
  this.timeout(300000);
  after(labDown);

  it("the 2022 upgrade (backend vxlan, calico-node rolled, pool still IPIP) cuts cross-node traffic", async () => {
    const lab = await settledLab();
    await kubectl(
      lab,
      "-n",
      "kube-system",
      "patch",
      "configmap",
      "calico-config",
      "--type",
      "merge",
      "-p",
      '{"data":{"calico_backend":"vxlan","cluster_type":"kubespray"}}',
    );
    await kubectl(
      lab,
      "-n",
      "kube-system",
      "patch",
      "daemonset",
      "calico-node",
      "--type",
      "strategic",
      "-p",
      JSON.stringify(VXLAN_TEMPLATE),
    );
    await waitUntil(
      "calico-node rolled with backend vxlan",
      () => {
        const s = nodesStatus(lab);
        return (
          s.summary.podsReady === 3 &&
          Object.values(s.nodes as Record<string, { backend: string | null }>).every(
            (n) => n.backend === "vxlan",
          )
        );
      },
      120000,
    );
    await resetProber(lab);
    await new Promise((r) => setTimeout(r, 3000));
    const figures = await readProber(lab);
    console.log(
      `      2022 upgrade replayed: ${figures.lost} of ${figures.sent} probes lost, longest gap ${figures.longest_gap_ms} ms`,
    );
    expect(figures.lost, "cross-node probes are lost").to.be.greaterThan(figures.sent / 2);
    expect(nodesStatus(lab).summary.birdRunning, "BIRD stopped").to.equal(0);
    const annotations = await nodeAnnotations(lab);
    for (const node of NODES) {
      expect(annotations[node]?.[VXLAN_ADDR], `${node} has no VXLAN tunnel address`).to.equal(
        undefined,
      );
      expect(await hasVxlanDevice(node), `${node} has no vxlan.calico`).to.equal(false);
    }
  });

  it("Kubespray's four documented steps end on VXLAN; the loss on the way is measured", async () => {
    const lab = await settledLab();
    const t0 = Date.now();
    const { poolWriteAt } = await kubesprayDocumentedSteps(lab);
    await new Promise((r) => setTimeout(r, 2000));
    const during = await readProber(lab);
    console.log(
      `      documented steps: ${during.lost} of ${during.sent} probes lost over ${((Date.now() - t0) / 1000).toFixed(1)} s, longest gap ${during.longest_gap_ms} ms`,
    );
    // The negative control: the documented steps do lose probes, and the loss starts at the pool write (BIRD
    // withdraws, every Felix restarts for its new VTEP), not at the FelixConfiguration write before it.
    expect(during.lost, "the documented steps lose probes").to.be.greaterThan(0);
    expect(Date.parse(during.first_lost_at ?? "")).to.be.at.least(poolWriteAt - 200);
    const annotations = await nodeAnnotations(lab);
    for (const node of NODES) {
      expect(annotations[node]?.[VXLAN_ADDR], `${node} VXLAN tunnel address`).to.be.a("string");
      expect(await hasVxlanDevice(node), `${node} vxlan.calico`).to.equal(true);
    }
    await resetProber(lab);
    await new Promise((r) => setTimeout(r, 2000));
    const after = await readProber(lab);
    expect(after.lost, "traffic flows through VXLAN afterwards").to.equal(0);
  });
});
