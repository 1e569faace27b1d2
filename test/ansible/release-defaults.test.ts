// The role's defaults by Kubespray release (vars/main.yml, calico_encap_release_defaults) against each release's own
// tree (../shared/kubespray, unmodified), both rendered by the real ansible-playbook: a fork is made of links to the
// tree's roles (and galaxy.yml), the play sits at its root as a fork's cluster.yml does, and loads the release's
// defaults files as vars_files. The release's values are the expressions its own Calico role renders
// (install.yml's blockSize, calico-config's backend), read from the tree's text so that the test follows the
// release, not this file. The role finds the release in the tree (tasks/release.yml) and renders its row.

import { expect } from "chai";
import { execa } from "execa";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { ansibleEnv, REPO, VENV_BIN } from "../support/ansible.js";
import { KUBESPRAY_TREES, type KubesprayRelease } from "../support/kubespray.js";
import {
  backendExpression,
  blockSizeExpression,
  defaultsFiles,
  linkFork,
} from "../support/kubespray-tree.js";

const RELEASES: [KubesprayRelease, string][] = [
  ["v2.18.2", "2.18"],
  ["v2.19.1", "2.19"],
  ["v2.28.1", "2.28"],
  ["v2.30.0", "2.30"],
  ["v2.31.0", "2.31"],
];

async function render(release: KubesprayRelease): Promise<{ line: string; row: unknown; release: unknown }> {
  const tree = join(KUBESPRAY_TREES, release);
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-fork-"));
  linkFork(tree, dir);
  const out = join(dir, "out.json");
  const blockSize = blockSizeExpression(tree, false);
  const blockSize6 = blockSizeExpression(tree, true);
  const play = [
    {
      hosts: "localhost",
      gather_facts: false,
      vars_files: defaultsFiles(tree),
      tasks: [
        { "ansible.builtin.include_role": { name: "calico_encap", tasks_from: "release", public: true } },
        {
          "ansible.builtin.copy": {
            dest: out,
            mode: "0600",
            content: `{{ {
              'line': calico_encap_release,
              'row': calico_encap_defaults,
              'release': {
                'calico_ipip_mode': calico_ipip_mode,
                'calico_vxlan_mode': calico_vxlan_mode,
                'calico_network_backend': ${backendExpression(tree)},
                'calico_pool_blocksize': ${blockSize},
                'calico_vxlan_mode_ipv6': calico_vxlan_mode_ipv6,
                'calico_pool_blocksize_ipv6': ${blockSize6},
              },
            } | to_json }}`,
          },
        },
      ],
    },
  ];
  writeFileSync(join(dir, "play.yml"), stringify(play));
  const r = await execa(join(VENV_BIN, "ansible-playbook"), ["-i", "localhost,", "-c", "local", "-e", `ansible_python_interpreter=${join(VENV_BIN, "python")}`, join(dir, "play.yml")], {
    reject: false,
    env: ansibleEnv({ ANSIBLE_ROLES_PATH: join(REPO, "ansible", "roles") }),
    all: true,
  });
  if (r.exitCode !== 0) throw new Error(`ansible-playbook exited ${r.exitCode}:\n${r.all ?? ""}`);
  return JSON.parse(readFileSync(out, "utf8")) as { line: string; row: unknown; release: unknown };
}

/** Numbers as Ansible's templates give them (24 or "24"): compared as text. */
const asText = (o: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(o as Record<string, unknown>).map(([k, v]) => [k, String(v)]));

describe("the role's defaults by Kubespray release, against each release's own tree", function () {
  this.timeout(120000);
  for (const [release, line] of RELEASES)
    it(`finds ${release} in its tree as ${line} and falls back to exactly the defaults ${release}'s Calico role renders`, async () => {
      const got = await render(release);
      expect(got.line).to.equal(line);
      expect(asText(got.row)).to.deep.equal(asText(got.release));
    });

  it("can fail: v2.18.2's tree differs from the v2.19 row in the pool's encapsulation and backend", async () => {
    const got = await render("v2.18.2");
    const v219 = (await render("v2.19.1")).row;
    expect(asText(got.release)).to.not.deep.equal(asText(v219));
  });
});
