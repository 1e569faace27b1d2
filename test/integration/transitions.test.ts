// Every transition in both directions on the lab: the seven states Calico can run (IPIP Always / CrossSubnet
// with bird; VXLAN Always / CrossSubnet with bird or vxlan; no encapsulation with bird), visited so that each
// ordered pair is one migration (a tour of all 42), with the prober running throughout.
//
// Expected by the reference's rules: no loss while the same daemon keeps owning the pool's routes (VXLAN to
// VXLAN variants, backend switches under VXLAN, IPIP to IPIP or unencapsulated under BIRD). Where ownership
// moves between Felix (VXLAN) and BIRD, the nodes switch one by one, and into VXLAN no route exists from the pool
// write until every node has its VTEP (reference/calico.md, "Tunnel addresses and devices", "Routing
// ownership"): that window is measured and bounded, not hidden.

import { expect } from "chai";
import type { TaskResult } from "../support/ansible.js";
import { runTask } from "../support/ansible.js";
import type { Lab } from "../support/lab.js";
import {
  labDown,
  labUp,
  readProber,
  resetProber,
  nodesStatus,
  poolSwitchWindowMs,
  startProber,
  waitUntil,
} from "../support/lab.js";

interface State {
  name: string;
  ipip_mode: string;
  vxlan_mode: string;
  network_backend: string;
}

const STATES: State[] = [
  { name: "IPIP Always/bird", ipip_mode: "Always", vxlan_mode: "Never", network_backend: "bird" },
  {
    name: "IPIP CrossSubnet/bird",
    ipip_mode: "CrossSubnet",
    vxlan_mode: "Never",
    network_backend: "bird",
  },
  { name: "VXLAN Always/bird", ipip_mode: "Never", vxlan_mode: "Always", network_backend: "bird" },
  {
    name: "VXLAN Always/vxlan",
    ipip_mode: "Never",
    vxlan_mode: "Always",
    network_backend: "vxlan",
  },
  {
    name: "VXLAN CrossSubnet/bird",
    ipip_mode: "Never",
    vxlan_mode: "CrossSubnet",
    network_backend: "bird",
  },
  {
    name: "VXLAN CrossSubnet/vxlan",
    ipip_mode: "Never",
    vxlan_mode: "CrossSubnet",
    network_backend: "vxlan",
  },
  { name: "none/bird", ipip_mode: "Never", vxlan_mode: "Never", network_backend: "bird" },
];

/** A closed walk over the complete directed graph that uses every ordered pair once (Hierholzer). */
function tour(n: number): number[] {
  const next = Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) => j).filter((j) => j !== i),
  );
  const stack = [0];
  const walk: number[] = [];
  while (stack.length) {
    const v = stack[stack.length - 1]!;
    const out = next[v]!;
    if (out.length) stack.push(out.shift()!);
    else walk.push(stack.pop()!);
  }
  return walk.reverse();
}

/** The pool's routes move between Felix (VXLAN) and BIRD (IPIP or unencapsulated). */
const ownerChanges = (from: State, to: State): boolean =>
  (from.vxlan_mode === "Never") !== (to.vxlan_mode === "Never");

describe("every transition on the lab", function () {
  this.timeout(3600000);
  let lab: Lab;
  before(async () => {
    lab = await labUp("kubespray-2.18");
    await waitUntil(
      "calico-node ready with BIRD",
      () => nodesStatus(lab).summary.podsReady === 3,
      60000,
    );
    // The tour outlasts the prober's default 30 minutes.
    await startProber(lab, 7200);
  });
  after(labDown);

  const walk = tour(STATES.length);
  it("the tour uses each of the 42 ordered pairs once", () => {
    const pairs = new Set(walk.slice(1).map((to, i) => `${walk[i]}>${to}`));
    expect(pairs.size).to.equal(42);
    expect(walk.length).to.equal(43);
  });

  for (let i = 1; i < walk.length; i++) {
    const from = STATES[walk[i - 1]!]!;
    const to = STATES[walk[i]!]!;
    it(`${from.name} -> ${to.name}`, async () => {
      await resetProber(lab);
      const started = new Date().toISOString();
      const r: TaskResult = (
        await runTask({
          calico_encap_migrate: {
            calicoctl_path: lab.calicoctlSh,
            kubectl_path: lab.kubectl,
            kubeconfig: lab.kubeconfig,
            wait_sleep: 1,
            wait_timeout: 120,
            ipip_mode: to.ipip_mode,
            vxlan_mode: to.vxlan_mode,
            network_backend: to.network_backend,
          },
        })
      ).result;
      const p = await readProber(lab);
      const steps = (r.steps ?? []) as { title: string; seconds: number }[];
      const windowMs = steps.some((s) => /Switch IPPool/.test(s.title))
        ? poolSwitchWindowMs(steps)
        : 0;
      console.log(
        `      ${p.lost} of ${p.sent} probes lost, longest gap ${p.longest_gap_ms} ms, pool switch window ${windowMs} ms; ${started} .. ${new Date().toISOString()}; steps ${steps.map((s) => `[${s.title}] ${s.seconds} s`).join(", ")}; lossy pairs ${JSON.stringify(p.pairs.filter((x) => x.lost > 0))}`,
      );
      expect(r.failed, r.msg).to.not.equal(true);
      expect(r.migrated_to).to.deep.equal({
        backend: to.network_backend,
        pools: [{ name: "default-pool", ipip_mode: to.ipip_mode, vxlan_mode: to.vxlan_mode }],
      });
      if (ownerChanges(from, to)) {
        expect(p.longest_gap_ms, "the longest gap fits in the pool switch step").to.be.below(windowMs);
        expect(p.lost, "the loss fits in the pool switch step").to.be.at.most(
          (p.rate_pps * windowMs) / 1000,
        );
      } else expect(p.lost, "no packet lost").to.equal(0);
    });
  }
});
