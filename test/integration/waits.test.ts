// calico_encap_migrate's waits on the lab: the kube-apiserver paused (SIGSTOP) during a wait, briefly and past
// wait_timeout, and a Node the calico-node DaemonSet does not run on. The module runs as its own process at
// verbosity 1, so the test acts on its progress lines as they come.

import { expect } from "chai";
import { execa } from "execa";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { TaskResult } from "../support/ansible.js";
import { REPO, runTask } from "../support/ansible.js";
import type { Lab } from "../support/lab.js";
import { kubectl, labDown, labUp, migrateArgs, nodesStatus, waitUntil } from "../support/lab.js";

const TO_VXLAN = { ipip_mode: "Never", vxlan_mode: "Always", network_backend: "vxlan" };
const TO_IPIP = { ipip_mode: "Always", vxlan_mode: "Never", network_backend: "bird" };
/** The first progress line of the pool switch's wait: the pool is written and the run is polling. */
const POOL_WAIT = /calico-encap: step 2\/4 'Switch IPPool default-pool.*: .* \(\d+ s\)/;

interface Run {
  result: TaskResult & { steps?: { title: string; settled?: boolean }[]; rolled_back?: boolean };
  lines: string[];
  /** Milliseconds the apiserver was stopped. */
  pausedMs: number;
}

/** Runs the module; at the first line matching `at`, stops the apiserver for pauseMs. */
async function runPausing(
  lab: Lab,
  args: Record<string, unknown>,
  at: RegExp,
  pauseMs: number,
): Promise<Run> {
  const pid = readFileSync(join(lab.state, "run", "kube-apiserver.pid"), "utf8").trim();
  const file = join(mkdtempSync(join(tmpdir(), "calico-encap-waits-")), "args.json");
  writeFileSync(file, JSON.stringify({ ...args, _ansible_verbosity: 1 }));
  const child = execa(
    "node",
    [join(REPO, "dist", "src", "cli.js"), "module", "calico_encap_migrate", file],
    { reject: false },
  );
  const lines: string[] = [];
  let pause: Promise<number> | null = null;
  createInterface({ input: child.stderr }).on("line", (line) => {
    lines.push(line);
    if (pause === null && at.test(line))
      pause = (async () => {
        const t0 = Date.now();
        await execa("kill", ["-STOP", pid]);
        try {
          await new Promise((r) => setTimeout(r, pauseMs));
        } finally {
          await execa("kill", ["-CONT", pid]);
        }
        return Date.now() - t0;
      })();
  });
  const r = await child;
  const pausedMs = pause === null ? 0 : await (pause as Promise<number>);
  expect(
    pausedMs,
    `the apiserver was to be paused; the run logged:\n${lines.join("\n")}`,
  ).to.be.above(0);
  return { result: JSON.parse(r.stdout) as Run["result"], lines, pausedMs };
}

async function checkCluster(lab: Lab, target: Record<string, unknown>): Promise<unknown> {
  const r = await runTask({
    calico_pool_check: {
      calicoctl_path: lab.calicoctlSh,
      kubectl_path: lab.kubectl,
      kubeconfig: lab.kubeconfig,
      ...target,
    },
  });
  return r.result.cluster;
}

describe("calico_encap_migrate's waits on the lab", function () {
  this.timeout(900000);
  after(labDown);
  let lab: Lab;
  before(async () => {
    lab = await labUp("kubespray-2.18");
    await waitUntil("calico-node ready with BIRD", () => {
      const s = nodesStatus(lab).summary;
      return s.podsReady === 3 && s.birdRunning === 3;
    });
  });

  // Reads time out after 3 s while the apiserver is stopped, so the wait sees them fail.
  const quick = (lab: Lab) => ({ ...migrateArgs(lab), command_timeout: 3 });

  it("rolls back and verifies it when the apiserver stays paused past wait_timeout, and says so", async () => {
    const before = await checkCluster(lab, TO_VXLAN);
    const { result: r, lines } = await runPausing(
      lab,
      { ...quick(lab), ...TO_VXLAN, wait_timeout: 10 },
      POOL_WAIT,
      16000,
    );
    expect(r.failed, r.msg).to.equal(true);
    expect(r.msg).to.match(
      /^step "Switch IPPool default-pool[^"]*" did not converge within wait_timeout: /,
    );
    expect(r.msg).to.include("reading the cluster failed");
    expect(r.msg, `${r.msg}\n${lines.join("\n")}`).to.include(
      "rolled back to the state before the first write and verified it",
    );
    expect(r.rolled_back).to.equal(true);
    expect((r.plan as unknown[]).length).to.equal(4);
    const pool = r.steps?.find((s) =>
      s.title.startsWith("Switch IPPool default-pool to ipipMode Never"),
    );
    expect(pool?.settled, JSON.stringify(r.steps)).to.equal(false);
    expect(r.steps?.at(-1)?.settled).to.equal(true);
    expect(lines.filter((l) => l.includes("reading the cluster failed")).length).to.be.at.least(1);
    expect(await checkCluster(lab, TO_VXLAN), "the cluster ends as it began").to.deep.equal(before);
  });

  it("completes when the apiserver pauses for 5 s during a wait, showing what failed", async () => {
    const {
      result: r,
      lines,
      pausedMs,
    } = await runPausing(lab, { ...quick(lab), ...TO_VXLAN, wait_timeout: 60 }, POOL_WAIT, 5000);
    expect(r.failed, r.msg).to.not.equal(true);
    expect(r.changed).to.equal(true);
    expect(r.migrated_to).to.deep.include({ backend: "vxlan" });
    expect(r.steps?.every((s) => s.settled)).to.equal(true);
    // The poll that met the pause: its Lease renewal, its read or both timed out, and the line says so.
    const shown = lines.filter((l) =>
      /step 2\/4 .*waiting for .*(renewing the Lease|reading the cluster) failed: .*timed out/.test(
        l,
      ),
    );
    expect(shown.length, lines.join("\n")).to.be.at.least(1);
    expect(pausedMs).to.be.at.least(5000);
  });

  it("does not wait on a Node outside the calico-node DaemonSet's nodeSelector, and names it", async () => {
    const node = {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: "node-4", labels: { "kubernetes.io/hostname": "node-4" } },
    };
    const file = join(mkdtempSync(join(tmpdir(), "calico-encap-node-")), "node.json");
    writeFileSync(file, JSON.stringify(node));
    await kubectl(lab, "create", "-f", file);
    try {
      const pods = await kubectl(
        lab,
        "-n",
        "kube-system",
        "get",
        "pods",
        "-l",
        "k8s-app=calico-node",
        "-o",
        "jsonpath={.items[*].spec.nodeName}",
      );
      expect(pods.split(" ")).to.not.include("node-4");
      const started = Date.now();
      const r = (
        await runTask({
          calico_encap_migrate: { ...migrateArgs(lab), ...TO_IPIP, wait_timeout: 120 },
        })
      ).result;
      expect(r.failed, r.msg).to.not.equal(true);
      expect(r.migrated_to).to.deep.include({ backend: "bird" });
      expect(r.warnings?.join("\n")).to.include(
        "Node node-4 was not waited on (no calico-node there to converge): the calico-node DaemonSet does not run on it: its nodeSelector kubernetes.io/os: linux does not match the node's labels.",
      );
      expect(Date.now() - started, "no wait ran until wait_timeout").to.be.below(120000);
    } finally {
      await kubectl(lab, "delete", "node", "node-4", "--ignore-not-found");
    }
  });
});
