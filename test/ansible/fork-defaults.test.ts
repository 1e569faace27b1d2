// The fork's own Calico defaults (the lookup kubespray_calico_defaults, through the role's tasks/fork_defaults.yml)
// against each of the fourteen Kubespray trees in ../shared/kubespray (unmodified), on the Ansible this suite runs
// (make test runs test/ansible on ansible-core 2.19 and on Kubespray's own: v2.18.2's ansible-base 2.10, v2.19.1's
// ansible-core 2.12 and ansible 9.13.0's 2.16). What the fork's roles render is read independently: a play loads the
// tree's defaults files as vars_files (Ansible's own loading) and renders the expressions its Calico role writes (its
// install.yml's blockSize, its calico-config's backend), read from the tree's text so that the test follows the
// release, not the lookup. Beside them: a fork that changed a default, a tree whose galaxy.yml says 2.32.0, the tree
// found where a fork's play is and two folders above its inventory, and no tree at all.

import { expect } from "chai";
import { execa } from "execa";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { ansibleEnv, REPO, VENV_BIN } from "../support/ansible.js";
import { KUBESPRAY_TREES } from "../support/kubespray.js";
import {
  backendExpression,
  blockSizeExpression,
  calicoDefaultsFile,
  defaultsFiles,
  linkFork,
} from "../support/kubespray-tree.js";

const VARIABLES = [
  "calico_ipip_mode",
  "calico_vxlan_mode",
  "calico_network_backend",
  "calico_pool_blocksize",
  "calico_vxlan_mode_ipv6",
  "calico_pool_blocksize_ipv6",
];
const TREES = readdirSync(KUBESPRAY_TREES)
  .filter((d) => /^v2\.\d+\.\d+$/.test(d))
  .sort((a, b) => a.localeCompare(b, "en", { numeric: true }));

/** What the role answers in a play that runs where `dir` is, with `vars`: its defaults, and what it could not. */
interface Answer {
  defaults: Record<string, string>;
  missing: Record<string, string>;
  release: string | null;
  tree: string | null;
  pool_blocksize_kept: boolean;
}

const dump = (out: string, what: string): Record<string, unknown> => ({
  "ansible.builtin.copy": { dest: out, mode: "0600", content: `{{ ${what} | to_json }}` },
});

/** Runs PLAYS as one playbook in DIR; each play writes its JSON to the file it names. */
async function playbook(dir: string, plays: unknown[], inventory?: string): Promise<string> {
  const path = join(dir, "play.yml");
  writeFileSync(path, stringify(plays));
  const r = await execa(
    join(VENV_BIN, "ansible-playbook"),
    ["-i", inventory ?? "localhost,", "-c", "local", "-e", `ansible_python_interpreter=${join(VENV_BIN, "python")}`, path],
    { reject: false, env: ansibleEnv({ ANSIBLE_ROLES_PATH: join(REPO, "ansible", "roles") }), all: true },
  );
  return `exit ${r.exitCode}\n${r.all ?? ""}`;
}

const roleTasks = (out: string) => [
  { "ansible.builtin.include_role": { name: "calico_encap", tasks_from: "fork_defaults", public: true } },
  dump(out, "calico_encap_fork"),
];

/** The values the tree's own roles render, from its defaults files loaded by Ansible. */
const releasePlay = (tree: string, out: string) => ({
  name: `what ${tree}'s roles render`,
  hosts: "localhost",
  gather_facts: false,
  vars_files: defaultsFiles(tree),
  tasks: [
    dump(
      out,
      `{ 'calico_ipip_mode': calico_ipip_mode, 'calico_vxlan_mode': calico_vxlan_mode,
         'calico_network_backend': ${backendExpression(tree)}, 'calico_pool_blocksize': ${blockSizeExpression(tree, false)},
         'calico_vxlan_mode_ipv6': calico_vxlan_mode_ipv6, 'calico_pool_blocksize_ipv6': ${blockSizeExpression(tree, true)} }`,
    ),
  ],
});

/** The role in a play of its own, told the tree (calico_encap_kubespray_tree), nothing else loaded. */
const rolePlay = (tree: string, out: string) => ({
  name: `the role told ${tree}`,
  hosts: "localhost",
  gather_facts: false,
  vars: { calico_encap_kubespray_tree: tree },
  tasks: roleTasks(out),
});

/** Numbers as Ansible's templates give them (24 or "24"): compared as text. */
const asText = (o: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(o as Record<string, unknown>).map(([k, v]) => [k, String(v)]));

const read = <T>(file: string, output: string): T => {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as T;
  } catch {
    throw new Error(`${file} was not written:\n${output}`);
  }
};

/** A fork of TREE whose Calico defaults file is a copy with EDIT applied (its other roles linked). */
function forkWithDefaults(tree: string, edit: (text: string) => string, galaxy?: (text: string) => string): string {
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-fork-"));
  const file = calicoDefaultsFile(tree);
  const role = file.slice(0, -"/defaults/main.yml".length).slice(tree.length + 1); // roles/network_plugin/<role>
  mkdirSync(join(dir, "roles", "network_plugin"), { recursive: true });
  for (const r of readdirSync(join(tree, "roles")))
    if (r !== "network_plugin") symlinkSync(join(tree, "roles", r), join(dir, "roles", r));
  for (const r of readdirSync(join(tree, "roles", "network_plugin")))
    if (`roles/network_plugin/${r}` !== role)
      symlinkSync(join(tree, "roles", "network_plugin", r), join(dir, "roles", "network_plugin", r));
  cpSync(join(tree, role), join(dir, role), { recursive: true, dereference: true });
  writeFileSync(join(dir, role, "defaults", "main.yml"), edit(readFileSync(file, "utf8")));
  if (galaxy) writeFileSync(join(dir, "galaxy.yml"), galaxy(readFileSync(join(tree, "galaxy.yml"), "utf8")));
  return dir;
}

describe("the fork's own Calico defaults, read from its tree (lookup kubespray_calico_defaults)", function () {
  this.timeout(300000);
  let got: Record<string, { role: Answer; release: Record<string, unknown> }> = {};
  let output = "";

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), "calico-encap-fork-defaults-"));
    const plays = TREES.flatMap((t) => [
      releasePlay(join(KUBESPRAY_TREES, t), join(dir, `${t}.release.json`)),
      rolePlay(join(KUBESPRAY_TREES, t), join(dir, `${t}.role.json`)),
    ]);
    output = await playbook(dir, plays);
    got = Object.fromEntries(
      TREES.map((t) => [
        t,
        {
          role: read<Answer>(join(dir, `${t}.role.json`), output),
          release: read<Record<string, unknown>>(join(dir, `${t}.release.json`), output),
        },
      ]),
    );
  });

  it(`has the fourteen trees, v2.18 to v2.31 (${TREES.join(", ")})`, () => {
    expect(TREES.map((t) => /^v2\.(\d+)\./.exec(t)?.[1]).map(Number)).to.deep.equal(
      Array.from({ length: 14 }, (_, i) => 18 + i),
    );
  });

  for (const t of TREES)
    it(`${t}: answers every variable with exactly what ${t}'s own roles render`, () => {
      const { role, release } = got[t] ?? { role: undefined, release: undefined };
      expect(role?.missing, output).to.deep.equal({});
      expect(asText(role?.defaults), t).to.deep.equal(asText(release));
      expect(Object.keys(role?.defaults ?? {}).sort()).to.deep.equal([...VARIABLES].sort());
    });

  it("can fail: the releases differ where Kubespray changed its defaults (v2.18 -> v2.19 -> v2.20, v2.27 -> v2.28)", () => {
    const d = (t: string) => asText(got[t]?.role.defaults);
    expect(d("v2.18.2")).to.include({ calico_ipip_mode: "Always", calico_network_backend: "bird", calico_pool_blocksize: "24" });
    expect(d("v2.19.1")).to.include({ calico_ipip_mode: "Never", calico_network_backend: "vxlan", calico_pool_blocksize: "24" });
    expect(d("v2.20.0")).to.include({ calico_pool_blocksize: "26", calico_pool_blocksize_ipv6: "122" });
    expect(d("v2.27.1")).to.include({ calico_vxlan_mode_ipv6: "Never" });
    expect(d("v2.28.1")).to.include({ calico_vxlan_mode_ipv6: "Always" });
  });

  // Read in each tree's roles/network_plugin/calico/tasks/install.yml: "Get current calico network pool blocksize"
  // merges the live pool's blockSize over the inventory's from v2.22.2; v2.23.3's install.yml applies the inventory's
  // (as v2.18-v2.21 do), v2.24.3 on keep it again.
  const KEPT = ["v2.22.2", "v2.24.3", "v2.25.1", "v2.26.1", "v2.27.1", "v2.28.1", "v2.29.1", "v2.30.0", "v2.31.0"];
  it(`tells whether the fork's Calico role keeps the live pool's blockSize: ${KEPT.join(", ")} do, the others apply the inventory's`, () => {
    expect(TREES.filter((t) => got[t]?.role.pool_blocksize_kept === true)).to.deep.equal(KEPT);
    expect(TREES.filter((t) => got[t]?.role.pool_blocksize_kept === false)).to.deep.equal(
      TREES.filter((t) => !KEPT.includes(t)),
    );
  });

  it("answers a fork that changed a default with its own value, and a tree whose galaxy.yml says 2.32.0", async () => {
    const tree = join(KUBESPRAY_TREES, "v2.31.0");
    const changed = forkWithDefaults(tree, (t) => t.replace(/^calico_pool_blocksize: 26\b/m, "calico_pool_blocksize: 27"));
    const next = forkWithDefaults(
      tree,
      (t) => t.replace(/^calico_vxlan_mode: Always\b/m, "calico_vxlan_mode: CrossSubnet"),
      (g) => g.replace(/^version: .*$/m, "version: 2.32.0"),
    );
    const dir = mkdtempSync(join(tmpdir(), "calico-encap-fork-defaults-"));
    const out = await playbook(dir, [rolePlay(changed, join(dir, "changed.json")), rolePlay(next, join(dir, "next.json"))]);
    const a = read<Answer>(join(dir, "changed.json"), out);
    const b = read<Answer>(join(dir, "next.json"), out);
    expect(String(a.defaults.calico_pool_blocksize), out).to.equal("27");
    expect(b.release).to.equal("2.32.0");
    expect(b.defaults.calico_vxlan_mode).to.equal("CrossSubnet");
    expect(b.missing).to.deep.equal({});
  });

  it("finds the tree where a fork's play is, and two folders above the fork's inventory when the play is elsewhere", async () => {
    const tree = join(KUBESPRAY_TREES, "v2.19.1");
    const fork = mkdtempSync(join(tmpdir(), "calico-encap-fork-"));
    linkFork(tree, fork);
    const byPlay = await playbook(fork, [
      { name: "in the fork", hosts: "localhost", gather_facts: false, tasks: roleTasks(join(fork, "by-play.json")) },
    ]);
    expect(read<Answer>(join(fork, "by-play.json"), byPlay).tree).to.equal(fork);
    mkdirSync(join(fork, "inventory", "mycluster"), { recursive: true });
    const inventory = join(fork, "inventory", "mycluster", "hosts.ini");
    writeFileSync(inventory, "localhost\n");
    const elsewhere = mkdtempSync(join(tmpdir(), "calico-encap-play-"));
    const byInventory = await playbook(
      elsewhere,
      [{ name: "elsewhere", hosts: "localhost", gather_facts: false, tasks: roleTasks(join(elsewhere, "by-inventory.json")) }],
      inventory,
    );
    const answer = read<Answer>(join(elsewhere, "by-inventory.json"), byInventory);
    expect(answer.tree).to.equal(fork);
    expect(asText(answer.defaults)).to.include({ calico_ipip_mode: "Never", calico_pool_blocksize: "24" });
  });

  it("stops where no tree answers and the inventory leaves a variable undefined, naming it and what to set", async () => {
    const dir = mkdtempSync(join(tmpdir(), "calico-encap-play-"));
    const play = (vars: Record<string, unknown>, out: string) => ({
      name: "no tree",
      hosts: "localhost",
      gather_facts: false,
      vars,
      tasks: roleTasks(join(dir, out)),
    });
    const pinned = Object.fromEntries(VARIABLES.filter((v) => v !== "calico_pool_blocksize").map((v) => [v, "x"]));
    const out = await playbook(dir, [play(pinned, "pinned.json")]);
    expect(out).to.match(/^exit 2/);
    expect(out).to.include(
      "calico_encap cannot tell the Kubespray fork's own default of calico_pool_blocksize, which the inventory leaves undefined",
    );
    expect(out).to.include(`calico_pool_blocksize: no Kubespray tree at ${dir}`);
    expect(out).to.include("Set calico_encap_kubespray_tree to the fork's folder");
    const all = await playbook(dir, [play({ ...pinned, calico_pool_blocksize: 24 }, "all.json")]);
    expect(all, "every variable set: nothing to answer").to.match(/^exit 0/);
  });
});
