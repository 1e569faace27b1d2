// Kubespray's documented manual migration from IP-in-IP to VXLAN (docs/CNI/calico.md, "Migrating from IP in IP to
// VXLAN"; reference/kubespray-calico.md) as an operator types it on the lab: vxlanEnabled, the pool switch, a wait
// until vxlan.calico exists on every node, ipipEnabled false. The yardstick the migration's figures are held to.

import { felixRestartedSince } from "./felix-log.js";
import type { Lab } from "./lab.js";
import {
  calicoctl,
  hasVxlanDevice,
  nodesStatus,
  switchDefaultPoolToVxlan,
  waitUntil,
} from "./lab.js";

export const LAB_NODES = ["node-1", "node-2", "node-3"];

/** Runs the four steps; returns when the pool was written (ms since the epoch), once calico-node is ready again. */
export async function kubesprayDocumentedSteps(lab: Lab): Promise<{ poolWriteAt: number }> {
  await calicoctl(lab, "patch", "felixconfig", "default", "-p", '{"spec":{"vxlanEnabled":true}}');
  const poolWriteAt = Date.now();
  await switchDefaultPoolToVxlan(lab);
  await waitUntil("vxlan.calico on every node", async () =>
    (await Promise.all(LAB_NODES.map((n) => hasVxlanDevice(n)))).every(Boolean),
  );
  const felixWriteAt = Date.now();
  await calicoctl(lab, "patch", "felixconfig", "default", "-p", '{"spec":{"ipipEnabled":false}}');
  await waitUntil("calico-node ready", () => nodesStatus(lab).summary.podsReady === 3);
  // The write restarts every Felix (felix-log.ts), which the pods' readiness does not show: the steps end when each
  // restarted Felix has programmed the dataplane again (a CI run at load found 84 probes lost in the 2 s after the
  // steps when it did not wait for this).
  await waitUntil(
    "every Felix restarted by ipipEnabled: false has programmed the dataplane again",
    () => LAB_NODES.every((n) => felixRestartedSince(lab.state, n, felixWriteAt)),
    90_000,
  );
  return { poolWriteAt };
}
