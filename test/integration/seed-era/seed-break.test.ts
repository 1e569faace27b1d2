// The seed's break on the seed's Calico (issue 36, step 2 by hand): Kubespray issue #8691 on the real calico-node
// v3.22.0 (the minor Kubespray v2.19.1 deploys), its Felix, confd and BIRD under the lab's kubelet, on kube-apiserver
// v1.24.17 (the last minor serving discovery.k8s.io/v1beta1 EndpointSlices, which Felix v3.22 lists in KDD mode).
//
// Skipped unless LAB_CALICO=v3.22.0 or v3.21.4 (the #8691 reporter's calico/node): `make test` never runs it (it
// lies outside the lab queue's dist/test/integration/*.test.js). `make test-seed-era` builds and runs it on v3.22.0
// (LAB_CALICO=v3.22.0 LAB_KUBERNETES=v1.24); `make test-seed-era SEED_ERA_CALICO=v3.21.4` on v3.21.4.
//
// The cluster: Calico as Kubespray v2.18.2 leaves it (the kubespray-2.18 profile's hand-written seed: IPIP Always,
// backend bird, FelixConfiguration ipipEnabled true). The upgrade: what Kubespray v2.19.1's Calico role writes with its
// defaults (calico_ipip_mode Never, calico_vxlan_mode Always, calico_network_backend vxlan) on a cluster whose pool
// stays IP-in-IP, as the reporter's did: FelixConfiguration default merged with ipipEnabled false and vxlanEnabled
// true (v2.19.1's install.yml), calico-config's calico_backend vxlan and cluster_type kubespray, and the DaemonSet's
// template with Felix-only probes and FELIX_VXLANVNI/FELIX_VXLANPORT (v2.19.1's calico-node.yml.j2 for backend vxlan),
// which rolls calico-node. Those writes are made here with kubectl and calicoctl, not by Kubespray's role (its
// install on this Calico is not recorded yet).
//
// Before the writes, the preflight (`calico-encap check`, the calico_pool_check module outside Ansible) reads this
// cluster: the pool pinned with the backend left at v2.19.1's default must be blocked, the backend pinned too pass.
//
// What the reporter saw, asserted: no vxlan.calico on any node (no VXLAN pool, so no VXLAN tunnel address, so no
// VTEP), Felix logging "Failed to get link attributes" with "interface not present" for ifaceRegex "^vxlan.calico$"
// (Felix before v3.23 takes vxlanEnabled from FelixConfiguration, so its VXLAN route table looks for the device),
// BIRD not running, and cross-node pod traffic lost: BIRD's routes outlive it (Calico's bird.cfg: `persist`), so a
// node is cut off once it loses them, as at a restart (`ip route flush proto bird` in its namespace), where with BIRD
// running (the control, before the upgrade) the same flush heals within BIRD's 2 s kernel scan.

import { expect } from "chai";
import { execa } from "execa";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { PairReport } from "../../lab/prober/control.js";
import { REPO } from "../../support/ansible.js";
import type { Lab } from "../../support/lab.js";
import {
  calicoBackend,
  calicoctl,
  hasVxlanDevice,
  kubectl,
  labDown,
  labUp,
  nodesStatus,
  readProber,
  resetProber,
  startProber,
  waitUntil,
} from "../../support/lab.js";

const RELEASE = process.env.LAB_CALICO ?? "";
const NODES = ["node-1", "node-2", "node-3"];
const PREFIX = process.env.LAB_NETNS_PREFIX ?? "calab-";
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Every file named `name` under dir (the lab kubelet keeps each pod's service logs under <node root>/log/<pod>/). */
function filesNamed(dir: string, name: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return filesNamed(p, name);
    return f === name ? [p] : [];
  });
}

/** Felix's log lines on a node, every pod of it. */
function felixLog(lab: Lab, node: string): string {
  return filesNamed(join(lab.state, "nodes", node, "log"), "felix.log")
    .map((f) => readFileSync(f, "utf8"))
    .join("\n");
}

async function commandLines(node: string): Promise<string[]> {
  const pids = (await execa("ip", ["netns", "pids", `${PREFIX}${node}`])).stdout.split("\n");
  return pids.flatMap((pid) => {
    try {
      return [readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim()];
    } catch {
      return [];
    }
  });
}

/** What Kubespray v2.19.1's calico-node.yml.j2 changes in the DaemonSet for backend vxlan (a strategic merge). */
const DAEMONSET_VXLAN = {
  spec: {
    template: {
      spec: {
        containers: [
          {
            name: "calico-node",
            env: [
              { name: "FELIX_VXLANVNI", value: "4096" },
              { name: "FELIX_VXLANPORT", value: "4789" },
            ],
            livenessProbe: { exec: { command: ["/bin/calico-node", "-felix-live"] } },
            readinessProbe: { exec: { command: ["/bin/calico-node", "-felix-ready"] } },
          },
        ],
      },
    },
  },
};

const RESTART_BOUND_MS = 20000;
const CLI = join(REPO, "dist", "src", "cli.js");
const indent = (text: string): string => text.replace(/^/gm, "        | ");

/**
 * node-1 loses its kernel routes to the other nodes' blocks, as at its restart (`ip route flush proto bird` in its
 * namespace), and the prober measures over RESTART_BOUND_MS from just after the flush: the 6 pairs that need
 * node-1's routes (probes from node-1's pod or host, pod probes to node-1) and the 6 others.
 */
async function node1LosesItsRoutes(
  lab: Lab,
  what: string,
): Promise<{ touched: PairReport[]; others: PairReport[] }> {
  await execa("ip", ["-n", `${PREFIX}node-1`, "route", "flush", "proto", "bird"]);
  await resetProber(lab);
  await sleep(RESTART_BOUND_MS);
  const p = await readProber(lab);
  const touches = (x: PairReport): boolean =>
    x.from === "node-1" ||
    x.from === "node-1.host" ||
    (x.to === "node-1" && !x.from.endsWith(".host"));
  const touched = p.pairs.filter(touches);
  const others = p.pairs.filter((x) => !touches(x));
  const sum = (pairs: PairReport[], k: "sent" | "received"): number =>
    pairs.reduce((n, x) => n + x[k], 0);
  console.log(
    `      ${what}: node-1's routes flushed, over ${RESTART_BOUND_MS / 1000} s the ${touched.length} pairs that ` +
      `need them received ${sum(touched, "received")} of ${sum(touched, "sent")} (longest gap ` +
      `${Math.max(...touched.map((x) => x.longest_gap_ms))} ms); the other ${others.length} lost ` +
      `${others.reduce((n, x) => n + x.lost, 0)} of ${sum(others, "sent")}`,
  );
  expect(touched).to.have.length(6);
  return { touched, others };
}

(RELEASE === "v3.22.0" || RELEASE === "v3.21.4" ? describe : describe.skip)(
  `the seed's break (Kubespray #8691) on the real calico-node ${RELEASE || "v3.22.0"}`,
  function () {
    this.timeout(900000);
    let lab: Lab;
    before(async () => {
      // The hand-written seed of the kubespray-2.18 profile: Kubespray's recorded install is v3.31.0's.
      lab = await labUp("kubespray-2.18", 3, "real", {
        LAB_KUBESPRAY_INSTALL: "",
        LAB_KUBERNETES: "v1.24",
      });
      await startProber(lab);
    });
    after(labDown);

    it("v1.24.17's control plane runs the seed era's calico-node: Felix, allocate-tunnel-addrs, confd and BIRD Ready, meshed, no probe lost", async () => {
      const version = JSON.parse(await kubectl(lab, "version", "-o", "json")) as {
        serverVersion: { gitVersion: string };
      };
      expect(version.serverVersion.gitVersion).to.equal("v1.24.17");
      for (const node of NODES) {
        const cmds = await commandLines(node);
        for (const want of [
          /calico-node -felix$/,
          /calico-node -allocate-tunnel-addrs$/,
          /calico-node -confd$/,
          /^bird -R -s \/var\/run\/calico\/bird\.ctl -d -c \/etc\/calico\/confd\/config\/bird\.cfg$/,
        ])
          expect(
            cmds.some((c) => want.test(c)),
            `${node} runs ${want}: ${cmds.join(" | ")}`,
          ).to.equal(true);
      }
      const s = nodesStatus(lab).summary;
      expect(s.podsReady).to.equal(3);
      expect(s.birdRunning).to.equal(3);
      const info = JSON.parse(
        await kubectl(
          lab,
          "get",
          "clusterinformations.crd.projectcalico.org",
          "default",
          "-o",
          "json",
        ),
      ) as { spec: { calicoVersion: string } };
      expect(info.spec.calicoVersion).to.equal(RELEASE);
      const sock = join(lab.state, "nodes", "node-1", "var", "run", "calico", "bird.ctl");
      const out = (await execa("birdc", ["-s", sock, "show", "protocols"])).stdout;
      expect(
        out.match(/^Mesh_\S+\s+BGP\s+\S+\s+up\s+\S+\s+Established/gm) ?? [],
        out,
      ).to.have.length(2);
      await resetProber(lab);
      await sleep(3000);
      const p = await readProber(lab);
      console.log(
        `      calico-node ${RELEASE} on IPIP/bird: ${p.lost} of ${p.sent} probes lost over 3 s`,
      );
      expect(p.pairs).to.have.length(12);
      expect(p.lost, JSON.stringify(p.pairs)).to.equal(0);
      // The control: with BIRD running, node-1's routes come back (its kernel protocol scans every 2 s).
      const control = await node1LosesItsRoutes(lab, "backend bird, BIRD running (control)");
      for (const x of control.touched)
        expect(x.longest_gap_ms, `${x.from} -> ${x.to}`).to.be.at.most(3000);
      for (const x of control.others) expect(x.lost, `${x.from} -> ${x.to}`).to.equal(0);
    });

    it("the preflight (calico-encap check) on this Felix: the pool pinned with the backend left at v2.19.1's default is blocked, everything pinned passes", async () => {
      const flags = [
        ...[
          "--calicoctl",
          lab.calicoctlSh,
          "--kubectl",
          lab.kubectl,
          "--kubeconfig",
          lab.kubeconfig,
        ],
        // v2.19.1's calico_pool_blocksize falls back to kube_network_node_prefix, 24, as the cluster's.
        ...["--ipip-mode", "Always", "--vxlan-mode", "Never", "--pool-blocksize", "24"],
      ];
      const cli = (...args: string[]) =>
        execa("node", [CLI, "check", ...flags, ...args], {
          reject: false,
          env: { NO_COLOR: "1" },
        });
      const pinned = await cli();
      console.log(
        `      pool pinned, backend default (vxlan): exit ${pinned.exitCode}\n${indent(pinned.stdout)}`,
      );
      expect(pinned.exitCode, pinned.stdout).to.equal(1);
      expect(pinned.stdout).to.match(/calico_backend|network_backend/);
      const all = await cli("--network-backend", "bird");
      console.log(`      everything pinned: exit ${all.exitCode}\n${indent(all.stdout)}`);
      expect(all.exitCode, all.stdout).to.equal(0);
    });

    it("Kubespray v2.19.1's defaults on the IP-in-IP pool: no vxlan.calico, Felix's 'interface not present', BIRD stopped, a node that loses its routes cut off", async () => {
      await calicoctl(
        lab,
        "patch",
        "felixconfiguration",
        "default",
        "-p",
        JSON.stringify({ spec: { ipipEnabled: false, vxlanEnabled: true } }),
      );
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
        JSON.stringify({ data: { calico_backend: "vxlan", cluster_type: "kubespray" } }),
      );
      await kubectl(
        lab,
        "-n",
        "kube-system",
        "patch",
        "daemonset",
        "calico-node",
        "-p",
        JSON.stringify(DAEMONSET_VXLAN),
      );
      const rolled = Date.now();
      await waitUntil(
        "calico-node rolled without BIRD",
        () => {
          const s = nodesStatus(lab).summary;
          return s.podsReady === 3 && s.birdRunning === 0;
        },
        300000,
      );
      console.log(
        `      calico-node rolled to backend vxlan in ${Math.round((Date.now() - rolled) / 1000)} s`,
      );
      expect(await calicoBackend(lab)).to.equal("vxlan");
      const pool = JSON.parse(
        await calicoctl(lab, "get", "ippool", "default-pool", "-o", "json"),
      ) as {
        spec: { ipipMode?: string; vxlanMode?: string };
      };
      expect(pool.spec.ipipMode).to.equal("Always");
      expect(pool.spec.vxlanMode ?? "Never").to.equal("Never");
      // Felix's VXLAN route table resyncs every few seconds: give it 15 s to log.
      await sleep(15000);
      for (const node of NODES) {
        expect(await hasVxlanDevice(node, PREFIX), `${node} has no vxlan.calico`).to.equal(false);
        const cmds = await commandLines(node);
        expect(
          cmds.filter((c) => /^bird6? /.test(c)),
          `${node} runs no BIRD`,
        ).to.deep.equal([]);
        expect(
          cmds.some((c) => /calico-node -felix$/.test(c)),
          `${node} runs Felix`,
        ).to.equal(true);
        const lines = felixLog(lab, node)
          .split("\n")
          .filter((l) => l.includes("Failed to get link attributes"));
        console.log(
          `      ${node}: ${lines.length} of Felix's lines say ${JSON.stringify(lines[0] ?? "")}`,
        );
        expect(
          lines.some(
            (l) => l.includes("interface not present") && l.includes('ifaceRegex="^vxlan.calico$"'),
          ),
          `${node}'s Felix logs "interface not present" for vxlan.calico`,
        ).to.equal(true);
      }
      // BIRD's routes outlive it (`persist`): traffic flows on the routes nothing manages any more.
      await resetProber(lab);
      await sleep(3000);
      const stale = await readProber(lab);
      console.log(
        `      after the roll, on the routes BIRD left: ${stale.lost} of ${stale.sent} probes lost over 3 s`,
      );
      // node-1 loses them, as at its restart: nothing brings them back.
      const down = await node1LosesItsRoutes(lab, "backend vxlan, BIRD stopped");
      for (const x of down.touched) {
        expect(x.received, `${x.from} -> ${x.to}: nothing through`).to.equal(0);
        expect(x.sent, `${x.from} -> ${x.to}`).to.be.greaterThan(1000);
      }
      for (const x of down.others) expect(x.lost, `${x.from} -> ${x.to}`).to.equal(0);
    });
  },
);
