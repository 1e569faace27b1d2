// README's play in a fork of each Kubespray release, as README writes it (test/support/fork-play.ts: its table of
// where the play goes and its plays A, B, C), inserted into the tree's cluster.yml, upgrade-cluster.yml and scale.yml
// (the root's, or playbooks/'s) right after the import README names, and listed by the release's own Ansible (the venv
// of its requirements.txt, test/ansible-versions/venv.sh) with the collection installed from its tarball. No cluster:
// `--list-tasks` and `--list-hosts` say which tasks and hosts a run would take, under:
// - no tags: the preflight's check is listed, in the first play after the ones the import brings (issue 51);
// - --tags=network (Kubespray's documented network upgrade, where Kubespray's own check, tagged preinstall, is not
//   listed) and --tags=calico: listed; --tags=etcd, which leaves Calico alone: not listed;
// - upgrade-cluster.yml --tags=network: listed;
// - scale.yml --limit=<a new worker>: the play's hosts are that worker, and the check is listed.
// The quick tier takes one tree per layout (v2.19.1: root playbooks after legacy_groups.yml, play A; v2.23.3:
// playbooks/ after legacy_groups.yml, play B; v2.31.0: playbooks/ after boilerplate.yml, play C); the full tier all
// fourteen. It runs once per make test (not again with each Ansible of test-ansible-versions: each tree has its own).

import { expect } from "chai";
import { execa } from "execa";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { REPO } from "../support/ansible.js";
import { installCollection } from "../support/collection.js";
import { forkWithReadmePlay as fork, placementOf } from "../support/fork-play.js";
import { KUBESPRAY_TREES } from "../support/kubespray.js";
import { TIER } from "../support/tier.js";

const COMPARE = "calico_encap : Compare the inventory's Calico settings with the live cluster";
const PLAY_NAME = "Check Calico's encapsulation against the live cluster before anything changes";

const ALL = readdirSync(KUBESPRAY_TREES)
  .filter((d) => /^v2\.\d+\.\d+$/.test(d))
  .sort((a, b) => Number(a.split(".")[1]) - Number(b.split(".")[1]));
const TREES = TIER === "full" ? ALL : ["v2.19.1", "v2.23.3", "v2.31.0"];

/** The venv a user of the release has: its own requirements.txt (v2.31.0's with the collection's, as make test builds it). */
async function releaseVenv(release: string): Promise<string> {
  const name = release === "v2.31.0" ? "kubespray-v2.31.0+collection" : `kubespray-${release}`;
  const r = await execa("bash", [join(REPO, "test", "ansible-versions", "venv.sh"), name]);
  return r.stdout.trim();
}

/** An inventory as Kubespray's: a control plane host, two workers; every host local (nothing is run). */
const INVENTORY = stringify({
  all: {
    vars: { ansible_connection: "local", kube_network_plugin: "calico" },
    children: {
      kube_control_plane: { hosts: { "cp-1": null } },
      etcd: { hosts: { "cp-1": null } },
      kube_node: { hosts: { "node-1": null, "node-2": null } },
      k8s_cluster: { children: { kube_control_plane: null, kube_node: null } },
      calico_rr: { hosts: {} },
    },
  },
});

/** The plays of `--list-tasks` output: their header line and task lines. */
function plays(output: string): { header: string; tasks: string[] }[] {
  const out: { header: string; tasks: string[] }[] = [];
  for (const line of output.split("\n")) {
    if (/^\s+play #\d+ /.test(line)) out.push({ header: line.trim(), tasks: [] });
    else if (out.length > 0 && /^\s{6}\S/.test(line)) out.at(-1)!.tasks.push(line.trim());
  }
  return out;
}

if (!process.env.CALICO_ENCAP_ANSIBLE_VENV)
  describe("README's play in a fork of each Kubespray release, listed by the release's own Ansible", function () {
    this.timeout(600000);
    for (const release of TREES)
      describe(`Kubespray ${release} (README's play ${placementOf(release).play})`, () => {
        let list: (playbook: string, args: string[]) => Promise<string>;
        let f: ReturnType<typeof fork>;
        before(async () => {
          const bin = join(await releaseVenv(release), "bin");
          const collection = await installCollection(bin);
          f = fork(release, join(KUBESPRAY_TREES, release));
          writeFileSync(join(f.dir, "calico-encap-hosts.yml"), INVENTORY);
          list = async (playbook, args) => {
            const r = await execa(
              join(bin, "ansible-playbook"),
              ["-i", "calico-encap-hosts.yml", ...args, playbook],
              {
                cwd: f.dir,
                reject: false,
                all: true,
                extendEnv: false,
                env: {
                  PATH: collection.env.PATH ?? "",
                  HOME: process.env.HOME ?? f.dir,
                  ANSIBLE_CONFIG: join(f.dir, "ansible.cfg"),
                  ANSIBLE_COLLECTIONS_PATH: join(collection.dir, "collections"),
                  ANSIBLE_COLLECTIONS_PATHS: join(collection.dir, "collections"),
                  ANSIBLE_NOCOLOR: "1",
                },
              },
            );
            expect(r.exitCode, `ansible-playbook ${args.join(" ")} ${playbook}:\n${r.all}`).to.equal(0);
            return r.all ?? "";
          };
        });

        it("cluster.yml: the preflight's check is listed in the first play after the import README names", async () => {
          const before = plays(await list(f.prefix, ["--list-tasks"])).length;
          const all = plays(await list("cluster.yml", ["--list-tasks"]));
          const ours = all.findIndex((p) => p.header.includes(PLAY_NAME));
          expect(ours, all.map((p) => p.header).join("\n")).to.equal(before);
          expect(all[ours]!.header, "on k8s_cluster").to.match(/\(k8s_cluster\)/);
          expect(all[ours]!.tasks.some((t) => t.includes(COMPARE)), all[ours]!.tasks.join("\n")).to.equal(true);
        });

        for (const tags of ["network", "calico"])
          it(`cluster.yml --tags=${tags}: the preflight's check is listed`, async () => {
            const out = await list("cluster.yml", ["--list-tasks", `--tags=${tags}`]);
            expect(out).to.include(COMPARE);
            if (tags === "network")
              expect(
                out.split("\n").filter((l) => l.includes("Run calico checks")),
                "Kubespray's own check (kubernetes/preinstall, tagged preinstall) is not listed",
              ).to.deep.equal([]);
          });

        it("cluster.yml --tags=etcd, which leaves Calico alone: the preflight is not listed", async () => {
          expect(await list("cluster.yml", ["--list-tasks", "--tags=etcd"])).not.to.include(COMPARE);
        });

        it("upgrade-cluster.yml --tags=network: the preflight's check is listed", async () => {
          expect(await list("upgrade-cluster.yml", ["--list-tasks", "--tags=network"])).to.include(COMPARE);
        });

        it("scale.yml --limit=node-2 (a new worker): the play runs on that worker, its check listed", async () => {
          const out = await list("scale.yml", ["--list-hosts", "--list-tasks", "--limit=node-2"]);
          // README's play's block: from its header to the next play's.
          const rest = out.slice(out.indexOf(PLAY_NAME));
          const next = rest.search(/\n\s+play #\d+ /);
          const ours = next < 0 ? rest : rest.slice(0, next);
          expect(out, "README's play is in scale.yml").to.include(PLAY_NAME);
          expect(/pattern: \[[^\]]*\]\s+hosts \((\d+)\):\s+node-2/.exec(ours)?.[1], ours.slice(0, 400)).to.equal("1");
          expect(ours).to.include(COMPARE);
        });
      });
  });
