// Proof that the lab can fail: Kubespray's documented four manual steps end with a working VXLAN data plane, and
// the loss they cost on the way is measured and reported (a yardstick). The upgrade that broke clusters in 2022 is
// Kubespray v2.19.1's own role now: test/integration/kubespray-role.test.ts.

import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Lab, ProberFigures } from "../support/lab.js";
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
  let lastLab: Lab | null = null;
  after(labDown);

  it("Kubespray's four documented steps end on VXLAN; the loss on the way is measured", async () => {
    const lab = await settledLab();
    lastLab = lab;
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

  // The prober's own failure, told apart from the network's: an agent held off the CPU (here stopped, as a loaded
  // machine can hold it) lets its socket's receive buffer fill, and the kernel drops what the network delivered.
  // The report counts those drops (UDP RcvbufErrors of the agents' namespaces), and every loss message names them.
  // The agents ask for 4 MiB: a 3 s stall then drops nothing (its probes are lost to the 1 s timeout); at 64 KiB the
  // same stall overflows the buffer and the count rises.
  it("a stalled prober agent's socket drops are counted (RcvbufErrors), and its 4 MiB buffer holds a 3 s stall", async () => {
    expect(lastLab, "the lab of the test before, its prober running").to.not.equal(null);
    const lab = lastLab!;
    const stall = async (): Promise<ProberFigures> => {
      const pid = Number(readFileSync(join(lab.state, "prober", "node-2.pid"), "utf8").trim());
      await resetProber(lab);
      const quiet = await readProber(lab);
      expect(quiet.lost, "no loss while every agent runs").to.equal(0);
      expect(quiet.rcvbuf_errors, "no drops while every agent runs").to.equal(0);
      process.kill(pid, "SIGSTOP");
      try {
        await new Promise((r) => setTimeout(r, 3000));
      } finally {
        process.kill(pid, "SIGCONT");
      }
      await new Promise((r) => setTimeout(r, 1500));
      return readProber(lab);
    };
    const granted = (p: ProberFigures): number => p.rcvbuf_bytes ?? 0;
    const big = await stall();
    console.log(
      `      node-2's agent stopped 3 s, ${granted(big)} bytes granted: ${big.lost} of ${big.sent} lost; dropped ${big.rcvbuf_errors}`,
    );
    expect(granted(big), "every agent got its 4 MiB buffer").to.be.at.least(4 * 1024 * 1024);
    expect(big.lost, "the stalled agent's pairs lose probes (the 1 s timeout)").to.be.greaterThan(
      0,
    );
    expect(big.rcvbuf_errors, "a 4 MiB buffer holds a 3 s stall").to.equal(0);
    await startProber(lab, 600, 64 * 1024);
    const small = await stall();
    console.log(
      `      the same with ${granted(small)} bytes granted: ${small.lost} of ${small.sent} lost; dropped ${small.rcvbuf_errors}`,
    );
    expect(granted(small)).to.be.below(4 * 1024 * 1024);
    expect(small.rcvbuf_errors, "the kernel counted the agent's socket drops").to.be.greaterThan(0);
  });
});
