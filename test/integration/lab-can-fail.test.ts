// Proof that the lab can fail: Kubespray's documented four manual steps end with a working VXLAN data plane, and
// the loss they cost on the way is measured and reported (a yardstick). The upgrade that broke clusters in 2022 is
// Kubespray v2.19.1's own role now: test/integration/kubespray-role.test.ts.

import { expect } from "chai";
import type { Lab } from "../support/lab.js";
import { LAB_NODES, kubesprayDocumentedSteps } from "../support/kubespray-steps.js";
import {
  hasVxlanDevice,
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

describe("the lab can fail", function () {
  this.timeout(300000);
  after(labDown);

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
