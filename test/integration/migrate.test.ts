// calico_encap_migrate on the lab with the prober running: the real apiserver, calicoctl and kubectl, the real
// calico-node (Felix, allocate-tunnel-addrs, confd, BIRD) under the lab kubelet and the prober's pods networked by
// the real Calico CNI plugin, through the real ansible-playbook.

import { expect } from "chai";
import { expectOutageBelow } from "../support/outage-bounds.js";
import { execa } from "execa";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TaskResult } from "../support/ansible.js";
import { REPO, runTask } from "../support/ansible.js";
import type { Lab } from "../support/lab.js";
import { TIER } from "../support/tier.js";
import {
  checkArgs,
  faultsFile,
  hasVxlanDevice,
  kubectl,
  labDown,
  labUp,
  migrateArgs,
  readProber,
  resetProber,
  resourceVersions,
  nodesStatus,
  expectBelowYardstick,
  expectLossInPoolSwitch,
  type LossFigures,
  type StepTiming,
  startProber,
  waitUntil,
} from "../support/lab.js";

const TO_VXLAN = { ipip_mode: "Never", vxlan_mode: "Always", network_backend: "vxlan" };
const TO_IPIP = { ipip_mode: "Always", vxlan_mode: "Never", network_backend: "bird" };
/** Kubespray 2.19's defaults: VXLAN with backend vxlan; the block size still fell back to 24 (#9382). */
const KUBESPRAY_219 = { ...TO_VXLAN, pool_blocksize: 24 };

async function migrate(
  lab: Lab,
  target: Record<string, unknown>,
  args: string[] = [],
): Promise<TaskResult> {
  return (await runTask({ calico_encap_migrate: { ...migrateArgs(lab), ...target } }, { args }))
    .result;
}

async function healthyLab(): Promise<Lab> {
  const lab = await labUp("kubespray-2.18");
  await waitUntil("calico-node ready with BIRD", () => {
    const s = nodesStatus(lab).summary;
    return s.podsReady === 3 && s.birdRunning === 3;
  });
  await startProber(lab);
  await resetProber(lab);
  return lab;
}

describe("calico_encap_migrate on the lab", function () {
  this.timeout(600000);
  after(labDown);
  let lab: Lab;
  /** The IPIP -> VXLAN pool switch window of the uninterrupted run, the bound for the killed-and-resumed one. */
  let toVxlanWindowMs = 0;
  let toVxlan: LossFigures | null = null;
  before(async () => {
    lab = await healthyLab();
  });

  it("check mode returns the plan and a diff and writes nothing", async () => {
    const before = await resourceVersions(lab);
    const r = await migrate(lab, TO_VXLAN, ["--check", "--diff"]);
    expect(r.changed).to.equal(true);
    expect((r.plan as unknown[]).length).to.equal(4);
    expect(r.diff).to.have.property("after");
    expect(await resourceVersions(lab)).to.deep.equal(before);
  });

  it("moves a Kubespray 2.18 cluster to VXLAN with backend vxlan, then calico_pool_check passes with the 2.19 defaults", async () => {
    await resetProber(lab);
    const r = await migrate(lab, TO_VXLAN);
    const p = await readProber(lab);
    console.log(
      `      IPIP/bird -> VXLAN/vxlan: ${p.lost} of ${p.sent} probes lost, longest gap ${p.longest_gap_ms} ms; ${r.msg}`,
    );
    expect(r.failed, r.msg).to.not.equal(true);
    expect(r.changed).to.equal(true);
    expect(r.migrated_to).to.deep.equal({
      backend: "vxlan",
      pools: [{ name: "default-pool", ipip_mode: "Never", vxlan_mode: "Always" }],
    });
    expect(r.warnings?.join(" ")).to.include("MTU");
    // Bounded from this run: loss only inside the pool switch step (which lasts until Felix has restarted).
    const steps = r.steps as StepTiming[];
    toVxlanWindowMs = expectLossInPoolSwitch(p, steps);
    toVxlan = p;
    for (const node of ["node-1", "node-2", "node-3"])
      expect(await hasVxlanDevice(node), node).to.equal(true);
    expect(nodesStatus(lab).summary.birdRunning).to.equal(0);
    const check = (
      await runTask({
        calico_pool_check: {
          ...checkArgs(lab),
          ...KUBESPRAY_219,
        },
      })
    ).result;
    expect(check.failed, check.msg).to.not.equal(true);
  });

  it("a second run reports no change", async () => {
    const before = await resourceVersions(lab);
    const r = await migrate(lab, TO_VXLAN);
    expect(r.changed).to.equal(false);
    expect(await resourceVersions(lab)).to.deep.equal(before);
  });

  it("moves back to IPIP with BIRD, every calico-node pod at once; the handover from Felix to BIRD fits in the pool switch step", async () => {
    await resetProber(lab);
    const r = await migrate(lab, TO_IPIP);
    const p = await readProber(lab);
    console.log(
      `      VXLAN/vxlan -> IPIP/bird: ${p.lost} of ${p.sent} probes lost, longest gap ${p.longest_gap_ms} ms`,
    );
    expect(r.failed, r.msg).to.not.equal(true);
    const steps = r.steps as StepTiming[];
    expect(steps[0]?.title).to.match(/roll on every node at once/);
    expect(steps[1]?.title).to.match(/backend bird/);
    // The real calico-node measured 42 of 52606 lost, gap 51 ms: routes move from Felix to BIRD at the pool write.
    expectLossInPoolSwitch(p, steps);
    expectBelowYardstick(p, toVxlan, "VXLAN/vxlan -> IPIP/bird");
    expect(nodesStatus(lab).summary.birdRunning).to.equal(3);
  });

  it("refuses while another run holds the Lease, and changes nothing", async () => {
    const lease = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "calico-encap-migrate", namespace: "kube-system" },
      spec: {
        holderIdentity: "other-controller/1/abcd",
        leaseDurationSeconds: 600,
        renewTime: new Date().toISOString().replace("Z", "000Z"),
      },
    };
    const file = join(tmpdir(), "calico-encap-lease.json");
    writeFileSync(file, JSON.stringify(lease));
    // apply: a run that finished leaves the Lease released (no holder), as client-go's ReleaseOnCancel does.
    await kubectl(lab, "apply", "-f", file);
    try {
      const before = await resourceVersions(lab);
      const r = await migrate(lab, TO_VXLAN);
      expect(r.failed).to.equal(true);
      expect(r.msg).to.include(
        "another calico_encap_migrate run holds Lease kube-system/calico-encap-migrate (holder other-controller/1/abcd",
      );
      expect(await resourceVersions(lab)).to.deep.equal(before);
    } finally {
      await kubectl(lab, "-n", "kube-system", "delete", "lease", "calico-encap-migrate");
    }
  });

  // The full tier: a real race of two runs (the quick tier keeps the refusal above; test/unit/cluster/lock.test.ts
  // races two Locks on every path), and a kill mid-run (the quick tier keeps interrupt.test.ts's chains and Molecule's
  // interrupted_resume).
  if (TIER === "full")
    it("two runs at once: one refuses on the Lease, the other migrates", async () => {
      const [a, b] = await Promise.all([migrate(lab, TO_VXLAN), migrate(lab, TO_VXLAN)]);
      const refused = [a, b].filter((r) => r.failed);
      expect(refused, JSON.stringify([a.msg, b.msg])).to.have.length(1);
      expect(refused[0]?.msg).to.include(
        "another calico_encap_migrate run holds Lease kube-system/calico-encap-migrate",
      );
      expect([a, b].filter((r) => !r.failed && r.changed)).to.have.length(1);
      const back = await migrate(lab, TO_IPIP);
      expect(back.failed, back.msg).to.not.equal(true);
    });

  it("refuses IPIP with backend vxlan before any write, saying why", async () => {
    const before = await resourceVersions(lab);
    const r = await migrate(lab, {
      ipip_mode: "Always",
      vxlan_mode: "Never",
      network_backend: "vxlan",
    });
    expect(r.failed).to.equal(true);
    expect(r.msg).to.match(/^Refused before any write: backend vxlan runs no BIRD/);
    expect(await resourceVersions(lab)).to.deep.equal(before);
  });

  if (TIER === "full")
    it("resumes after the process is killed in the middle, and completes", async () => {
      await resetProber(lab);
      const args = join(tmpdir(), "calico-encap-migrate-args.json");
      writeFileSync(args, JSON.stringify({ ...migrateArgs(lab), ...TO_VXLAN }));
      const cli = join(REPO, "dist", "src", "cli.js");
      const first = execa("node", [cli, "module", "calico_encap_migrate", args], { reject: false });
      await waitUntil(
        "the pool switched to VXLAN",
        async () =>
          (await kubectl(
            lab,
            "get",
            "ippools.crd.projectcalico.org",
            "default-pool",
            "-o",
            "jsonpath={.spec.vxlanMode}",
          )) === "Always",
        60000,
      );
      first.kill("SIGKILL");
      await first;
      const r = await migrate(lab, TO_VXLAN);
      expect(r.failed, r.msg).to.not.equal(true);
      expect(r.migrated_to).to.deep.include({ backend: "vxlan" });
      const p = await readProber(lab);
      console.log(
        `      killed mid-run and resumed: ${p.lost} of ${p.sent} probes lost, longest gap ${p.longest_gap_ms} ms (uninterrupted window ${toVxlanWindowMs} ms)`,
      );
      // The loss comes from the pool write (BIRD withdraws, Felix restarts for the new VTEP), not from the run that
      // watches it: killed right after that write, it stays within the uninterrupted run's pool switch window.
      expect(toVxlanWindowMs, "the uninterrupted IPIP -> VXLAN case ran first").to.be.greaterThan(
        0,
      );
      expectOutageBelow(p, toVxlanWindowMs, "the outage fits the uninterrupted pool switch window");
      expect(p.lost).to.be.at.most((p.rate_pps * toVxlanWindowMs) / 1000);
    });

  it("rolls back when a node never converges, ends as it began, and names the node", async () => {
    const back = await migrate(lab, TO_IPIP);
    expect(back.failed, back.msg).to.not.equal(true);
    const before = await runTask({
      calico_pool_check: {
        ...checkArgs(lab),
        ...TO_VXLAN,
      },
    });
    const faults = faultsFile(lab);
    writeFileSync(faults, JSON.stringify({ stuckTunnels: ["node-3"] }));
    try {
      const r = await migrate(lab, { ...TO_VXLAN, wait_timeout: 15 });
      expect(r.failed).to.equal(true);
      expect(r.rolled_back, r.msg).to.equal(true);
      expect(r.msg).to.include("node-3 (vxlan)");
      expect(r.msg).to.include("rolled back to the state before the first write and verified it");
    } finally {
      rmSync(faults, { force: true });
    }
    const after = await runTask({
      calico_pool_check: {
        ...checkArgs(lab),
        ...TO_VXLAN,
      },
    });
    expect(after.result.cluster, "the cluster ends as it began").to.deep.equal(
      before.result.cluster,
    );
  });
});
