// Kubespray's real roles against the lab: release trees found through KUBESPRAY_TREES (default ../shared/kubespray,
// unmodified `git archive` exports of Kubespray's tags; never copied into this repository), each run from the venv
// of the Ansible it pins (test/ansible-versions/venv.sh, Kubespray's own requirements.txt), over SSH to the lab's
// node-1, whose mount namespace gives it Kubespray's paths (/etc/kubernetes, /etc/cni/net.d, /usr/local/bin).
//
// The play is Kubespray's: its defaults role, network_facts where the release has it, and
// roles/network_plugin/calico. Its stubs, each standing for a part of Kubespray that cannot run here
// (test/lab/README.md, "Kubespray's real roles"):
// - the download role: calicoctl and the Calico CRDs are linked from the lab's own build (Calico v3.31) to where
//   Kubespray's download role would put them (`downloads.calicoctl.dest`,
//   `<local_release_dir>/calico-<calico_version>-kdd-crds`), computed from the release's own variables;
// - local_release_dir: node-1's own folder under the lab's state (Kubespray's default /tmp/releases is the
//   machine's /tmp, shared by every lab);
// - KUBECONFIG=/etc/kubernetes/admin.conf in node-1's SSH sessions (test/lab/net.sh), for the ~/.kube/config that
//   Kubespray's kubernetes/client role gives root on a control-plane node.

import { execa } from "execa";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { parse, stringify } from "yaml";
import { FQCN_PREFIX } from "../../tools/collection-content.js";
import { forkWithReadmePlay, placementOf, readmePlay } from "./fork-play.js";
import { ansibleEnv, REPO } from "./ansible.js";
import { installCollection, type InstalledCollection } from "./collection.js";
import {
  backendExpression,
  blockSizeExpression,
  calicoDefaultsFile,
  linkFork,
} from "./kubespray-tree.js";
import type { Lab } from "./lab.js";
import { parseRecap, type PlaybookRun } from "./playbook.js";

/** Where the release trees are: one folder per tag (`v2.31.0/`), each Kubespray's tree as released. */
export const KUBESPRAY_TREES = resolve(
  process.env.KUBESPRAY_TREES || join(REPO, "..", "shared", "kubespray"),
);

/** One release per line, as ../shared/kubespray holds them (one tree per tag). */
export const KUBESPRAY_RELEASES = [
  "v2.18.2",
  "v2.19.1",
  "v2.20.0",
  "v2.21.0",
  "v2.22.2",
  "v2.23.3",
  "v2.24.3",
  "v2.25.1",
  "v2.26.1",
  "v2.27.1",
  "v2.28.1",
  "v2.29.1",
  "v2.30.0",
  "v2.31.0",
] as const;
export type KubesprayRelease = (typeof KUBESPRAY_RELEASES)[number];

/**
 * The Ansible each release runs on here, as venv.sh builds it: `pip install -r` the release's own requirements.txt
 * from its tree, as its users run it (kubespray-vX.Y.Z; v2.18 to v2.22 pin ansible-base 2.10.15 or ansible-core
 * 2.12.5, which predate Python 3.11, on pyenv's Python 3.10); from v2.28.1 on the one it pins, from the requirements
 * files beside venv.sh (Kubespray's own pins, shared with test/ansible-versions: ansible 9.13.0, 10.7.0, 11.13.0).
 */
export const KUBESPRAY_ANSIBLE: Record<KubesprayRelease, string> = {
  "v2.18.2": "kubespray-v2.18.2",
  "v2.19.1": "kubespray-v2.19.1",
  "v2.20.0": "kubespray-v2.20.0",
  "v2.21.0": "kubespray-v2.21.0",
  "v2.22.2": "kubespray-v2.22.2",
  "v2.23.3": "kubespray-v2.23.3",
  "v2.24.3": "kubespray-v2.24.3",
  "v2.25.1": "kubespray-v2.25.1",
  "v2.26.1": "kubespray-v2.26.1",
  "v2.27.1": "kubespray-v2.27.1",
  "v2.28.1": "9.13.0",
  "v2.29.1": "10.7.0",
  "v2.30.0": "10.7.0",
  "v2.31.0": "11.13.0",
};

/** The collection installed once per Ansible (its bin directory) for this process. */
const installs = new Map<string, Promise<InstalledCollection>>();
function installedCollection(bin: string): Promise<InstalledCollection> {
  let install = installs.get(bin);
  if (!install) {
    install = installCollection(bin);
    installs.set(bin, install);
  }
  return install;
}

/** A release's tree; a clear error when KUBESPRAY_TREES does not hold it. */
export function kubesprayTree(release: KubesprayRelease): string {
  const tree = join(KUBESPRAY_TREES, release);
  if (!existsSync(join(tree, "roles", "network_plugin", "calico", "tasks", "main.yml")))
    throw new Error(
      `Kubespray ${release} not found: ${tree} has no roles/network_plugin/calico. Set KUBESPRAY_TREES to a folder ` +
        `with one Kubespray tree per tag (e.g. git -C kubespray archive --prefix=${release}/ ${release} | tar -x -C DIR).`,
    );
  return tree;
}

/** The venv of the Ansible a release runs on (built once by venv.sh, under a lock). */
export async function kubesprayVenv(release: KubesprayRelease): Promise<string> {
  const r = await execa("bash", [
    join(REPO, "test", "ansible-versions", "venv.sh"),
    KUBESPRAY_ANSIBLE[release],
  ]);
  return r.stdout.trim();
}

/** The fork in DIR (linkFork) with its own galaxy.yml: the tree's, its version VERSION. */
function relabelFork(tree: string, dir: string, version: string): void {
  const galaxy = readFileSync(join(tree, "galaxy.yml"), "utf8");
  if (!/^version: .*$/m.test(galaxy)) throw new Error(`${tree}/galaxy.yml has no version line`);
  rmSync(join(dir, "galaxy.yml"));
  writeFileSync(join(dir, "galaxy.yml"), galaxy.replace(/^version: .*$/m, `version: ${version}`));
}

/** Kubespray's defaults role: kubespray-defaults until it was renamed kubespray_defaults (both exist in between). */
function defaultsRole(tree: string): string {
  return existsSync(join(tree, "roles", "kubespray_defaults"))
    ? "kubespray_defaults"
    : "kubespray-defaults";
}

/**
 * Where Kubespray's `kube` module is: plugins/modules from v2.22 on, where library/kube.py is a symlink to it (the
 * trees here are exports whose symlinks may have become files), else library/.
 */
function kubeModuleDir(tree: string): string {
  const modules = join(tree, "plugins", "modules");
  return existsSync(join(modules, "kube.py")) ? modules : join(tree, "library");
}

/** node-1's address on the lab's underlay, from the inventory lab.sh wrote. */
function node1Address(lab: Lab): string {
  const inventory = readFileSync(join(lab.state, "inventory.ini"), "utf8");
  const m = /^node-1 ansible_host=(\S+)/m.exec(inventory);
  if (!m?.[1]) throw new Error(`${lab.state}/inventory.ini names no node-1 ansible_host`);
  return m[1];
}

/**
 * The plays of one ansible-playbook run, in order: this project's preflight or migration (the role calico_encap
 * with the release's defaults roles, as the README tells a fork) and Kubespray's Calico role; for the bench,
 * Kubespray's own Calico check tasks (check) and the same play without a task (defaults).
 */
export type KubesprayPlay = "preflight" | "migrate" | "calico" | "check" | "defaults" | "settings";

export interface KubesprayRun {
  release: KubesprayRelease;
  /** The inventory's variables for Kubespray (group_vars all), e.g. calico_ipip_mode. */
  vars?: Record<string, unknown>;
  /** Default: ["calico"], Kubespray's role alone. */
  plays?: KubesprayPlay[];
  /**
   * The fork's galaxy.yml says this version, its roles the release's: a fork of master (2.32.0 on v2.31.0's tree), a
   * release the project was never told about; its defaults come from its tree as any fork's do.
   */
  galaxyVersion?: string;
}

/** Kubespray's inventory for the lab: node-1 in every group the Calico role reads. */
function inventory(lab: Lab, vars: Record<string, unknown>): string {
  const addr = node1Address(lab);
  const all = {
    ansible_user: "root",
    ansible_ssh_private_key_file: join(lab.state, "ssh", "id_ed25519"),
    ansible_ssh_common_args:
      "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR",
    ansible_python_interpreter: "/usr/bin/python3",
    local_release_dir: join(lab.state, "node-1", "releases"),
    kube_network_plugin: "calico",
    ...vars,
  };
  const host = { "node-1": { ansible_host: addr, ip: addr, access_ip: addr } };
  return stringify({
    all: {
      vars: all,
      children: {
        kube_control_plane: { hosts: host },
        kube_node: { hosts: { "node-1": null } },
        etcd: { hosts: { "node-1": null } },
        k8s_cluster: { children: { kube_control_plane: null, kube_node: null } },
      },
    },
  });
}

/** The release's defaults roles: its defaults role, and network_plugin/calico_defaults where the release has it. */
function defaultsRoles(tree: string): { role: string }[] {
  return [
    { role: defaultsRole(tree) },
    ...(existsSync(join(tree, "roles", "network_plugin", "calico_defaults"))
      ? [{ role: "network_plugin/calico_defaults" }]
      : []),
  ];
}

/**
 * This project's role in a play of its own, with the release's defaults, as the README tells a fork: the preflight is
 * README's play for the release, as README writes it (fork-play.ts), the migration a play of the same shape.
 */
function calicoEncapPlay(tree: string, tasksFrom: "preflight" | "migrate"): unknown {
  if (tasksFrom === "preflight")
    return (parse(readmePlay(placementOf(basename(tree)).play)) as unknown[])[0];
  return {
    name: "Move the cluster to the inventory's Calico encapsulation",
    hosts: "kube_control_plane",
    gather_facts: false,
    any_errors_fatal: true,
    roles: defaultsRoles(tree),
    tasks: [
      {
        name: "Calico encapsulation migration",
        "ansible.builtin.import_role": {
          name: `${FQCN_PREFIX}.calico_encap`,
          tasks_from: tasksFrom,
        },
      },
    ],
  };
}

/**
 * Kubespray's own Calico check tasks as its kubernetes/preinstall role runs them (`include_role:
 * network_plugin/calico, tasks_from: check`), with the release's defaults roles, as calicoEncapPlay has them; with
 * `check` false, the same play without a task (the bench's null playbook: the same roles loaded, nothing run).
 */
function calicoCheckPlay(tree: string, check: boolean): unknown {
  return {
    name: check
      ? "Kubespray's Calico checks: roles/network_plugin/calico/tasks/check.yml"
      : "Kubespray's defaults roles without a task",
    hosts: "kube_control_plane",
    gather_facts: false,
    any_errors_fatal: true,
    roles: defaultsRoles(tree),
    tasks: check
      ? [
          {
            name: "Run calico checks",
            "ansible.builtin.include_role": { name: "network_plugin/calico", tasks_from: "check" },
          },
        ]
      : [],
  };
}

/** The marker of the settings play's line: `KUBESPRAY_CALICO_SETTINGS {json}`. */
const SETTINGS_MARK = "KUBESPRAY_CALICO_SETTINGS";

/** The pool and backend Kubespray's Calico role would write with the run's inventory, as its settings play rendered. */
export interface KubesprayCalicoSettings {
  pool_name: string;
  cidr: string;
  blockSize: number;
  ipipMode: string;
  vxlanMode: string;
  backend: string;
}

/**
 * What the release's own Calico role would write with this inventory, rendered by Ansible from the release's tree
 * (its defaults roles, its Calico role's defaults with a role default's precedence: an inventory value wins, and its
 * install.yml's and calico-config template's expressions): the oracle the parity matrix holds the preflight to,
 * independent of the role calico_encap.
 */
function settingsPlay(tree: string): unknown {
  const settings = [
    `'pool_name': calico_pool_name`,
    `'cidr': calico_pool_cidr | default(kube_pods_subnet)`,
    `'blockSize': (${blockSizeExpression(tree, false)}) | int`,
    `'ipipMode': calico_ipip_mode`,
    `'vxlanMode': calico_vxlan_mode`,
    `'backend': ${backendExpression(tree)}`,
  ];
  return {
    name: "What Kubespray's Calico role would write with this inventory",
    hosts: "kube_control_plane",
    // Some releases' Calico defaults read facts (v2.19.1: ansible_distribution_major_version).
    gather_facts: true,
    roles: [...defaultsRoles(tree), { role: CALICO_ROLE_DEFAULTS }],
    tasks: [
      {
        name: "The pool and backend the role would write",
        "ansible.builtin.debug": {
          msg: `${SETTINGS_MARK} {{ { ${settings.join(", ")} } | to_json }}`,
        },
      },
    ],
  };
}

/**
 * A role of the run's own whose defaults are the release's Calico role's defaults file (linked), so that the settings
 * play has them at a role default's precedence, as the Calico role has them, without running its tasks.
 */
const CALICO_ROLE_DEFAULTS = "kubespray_calico_role_defaults";
function linkCalicoRoleDefaults(tree: string, roles: string): void {
  const defaults = join(roles, CALICO_ROLE_DEFAULTS, "defaults");
  mkdirSync(defaults, { recursive: true });
  symlinkSync(calicoDefaultsFile(tree), join(defaults, "main.yml"));
}

/** The settings play's answer in a run's output. */
export function parseSettings(output: string): KubesprayCalicoSettings {
  const m = new RegExp(`${SETTINGS_MARK} (\\{.*\\})"`).exec(output);
  if (!m?.[1]) throw new Error(`no ${SETTINGS_MARK} line in the run's output:\n${output}`);
  return JSON.parse(m[1].replace(/\\"/g, '"')) as KubesprayCalicoSettings;
}

/** Network facts where the release computes them, then Kubespray's Calico role after the download stand-in. */
function calicoPlays(lab: Lab, tree: string): unknown[] {
  const defaults = { role: defaultsRole(tree) };
  const calicoModule = lab.env.LAB_CALICO_MODULE_DIR;
  const labBin = lab.env.LAB_BIN;
  if (!calicoModule || !labBin)
    throw new Error(`${lab.state}/env lacks LAB_CALICO_MODULE_DIR or LAB_BIN`);
  const crds = "{{ local_release_dir }}/calico-{{ calico_version }}-kdd-crds";
  const out: unknown[] = [];
  if (existsSync(join(tree, "roles", "network_facts")))
    out.push({
      name: "Gather and compute network facts (Kubespray's internal_facts.yml)",
      hosts: "k8s_cluster",
      gather_facts: true,
      tasks: [{ name: "Network facts", "ansible.builtin.import_role": { name: "network_facts" } }],
    });
  out.push({
    name: "Kubespray's network plugin: roles/network_plugin/calico",
    hosts: "k8s_cluster",
    gather_facts: true,
    any_errors_fatal: true,
    roles: [defaults, { role: "network_plugin/calico" }],
    pre_tasks: [
      {
        name: "Stand-in for Kubespray's download role: local_release_dir",
        "ansible.builtin.file": {
          path: "{{ local_release_dir }}",
          state: "directory",
          mode: "0755",
        },
      },
      {
        name: "Stand-in for Kubespray's download role: calicoctl (the lab's Calico)",
        "ansible.builtin.file": {
          src: join(labBin, "calicoctl"),
          dest: "{{ downloads.calicoctl.dest }}",
          state: "link",
          force: true,
        },
      },
      {
        name: "Stand-in for Kubespray's download role: the Calico CRDs folder",
        "ansible.builtin.file": { path: `${crds}/crd`, state: "directory", mode: "0755" },
      },
      {
        // A release before v3.23 (the seed era's, LAB_CALICO=v3.22.0) has no manifests/crds.yaml in its module: its
        // CRD files go to the folder's top, as Kubespray v2.18's download of the release's kdd CRDs leaves them.
        name: "Stand-in for Kubespray's download role: the Calico CRDs (the lab's Calico)",
        "ansible.builtin.shell":
          `ln -sf ${join(calicoModule, "libcalico-go", "config", "crd")}/*.yaml "${crds}/crd/" && ` +
          `if [ -f ${join(calicoModule, "manifests", "crds.yaml")} ]; then ` +
          `ln -sf ${join(calicoModule, "manifests", "crds.yaml")} "${crds}/crds.yaml"; ` +
          `else ln -sf ${join(calicoModule, "libcalico-go", "config", "crd")}/*.yaml "${crds}/"; fi`,
        changed_when: false,
      },
    ],
  });
  return out;
}

/** One ansible-playbook run of Kubespray's roles, written to its folder but not started. */
export interface KubesprayPlaybook {
  /** The folder with ansible.cfg, hosts.yml and play.yml (and output.log once runKubespray ran it). */
  dir: string;
  argv: string[];
  /** The whole environment (no ANSIBLE_* of the caller's): run with extendEnv false. */
  env: Record<string, string>;
}

/**
 * Writes the ansible.cfg, inventory and plays of a run of Kubespray's roles (as runKubespray runs them) and returns
 * the command, for a caller that runs it more than once (test/bench/ssh.bench.ts).
 */
export async function kubesprayPlaybook(lab: Lab, run: KubesprayRun): Promise<KubesprayPlaybook> {
  const tree = kubesprayTree(run.release);
  const venv = await kubesprayVenv(run.release);
  const dir = mkdtempSync(join(tmpdir(), `calico-encap-kubespray-${run.release}-`));
  // The play at the root of a fork of the release, as its cluster.yml, where the role calico_encap finds the
  // fork's own defaults (tasks/fork_defaults.yml).
  linkFork(tree, dir);
  if (run.galaxyVersion) relabelFork(tree, dir, run.galaxyVersion);
  const runRoles = join(dir, "run-roles");
  linkCalicoRoleDefaults(tree, runRoles);
  const plays = run.plays ?? ["calico"];
  const bin = join(venv, "bin");
  // This project's plays use the collection as a user installs it (the tarball, with this Ansible's ansible-galaxy),
  // with nothing of the checkout on any path; Kubespray's plays alone need no install.
  const collection = plays.some((p) => p === "preflight" || p === "migrate")
    ? await installedCollection(bin)
    : null;
  writeFileSync(
    join(dir, "ansible.cfg"),
    [
      "# Kubespray's tree and the installed collection, as a fork's ansible.cfg lists them (README).",
      "[defaults]",
      `roles_path = ${join(tree, "roles")}:${runRoles}`,
      `library = ${kubeModuleDir(tree)}`,
      ...(collection ? [`collections_path = ${join(collection.dir, "collections")}`] : []),
      "force_valid_group_names = ignore",
      "host_key_checking = False",
      "stdout_callback = default",
      "deprecation_warnings = False",
      "[ssh_connection]",
      "pipelining = True",
      "",
    ].join("\n"),
  );
  writeFileSync(join(dir, "hosts.yml"), inventory(lab, run.vars ?? {}));
  writeFileSync(
    join(dir, "play.yml"),
    stringify(
      plays.flatMap((p) =>
        p === "calico"
          ? calicoPlays(lab, tree)
          : p === "check" || p === "defaults"
            ? [calicoCheckPlay(tree, p === "check")]
            : p === "settings"
              ? [settingsPlay(tree)]
              : [calicoEncapPlay(tree, p)],
      ),
    ),
  );
  // Only this run's Ansible settings (no ANSIBLE_* of the caller's: Molecule's ANSIBLE_ROLES_PATH and
  // ANSIBLE_LIBRARY, when a scenario starts the lab, would override this ansible.cfg), and a PATH without the
  // checkout (the collection's environment), so that only the installed collection's backend can run.
  const env: Record<string, string> = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(
        (e): e is [string, string] => !e[0].startsWith("ANSIBLE_") && e[1] !== undefined,
      ),
    ),
    ...ansibleEnv({ ANSIBLE_CONFIG: join(dir, "ansible.cfg") }, bin),
    ...(collection ? { PATH: collection.env.PATH ?? "" } : {}),
  };
  delete env.CALICO_ENCAP_BACKEND;
  return {
    dir,
    argv: [join(bin, "ansible-playbook"), "-i", join(dir, "hosts.yml"), join(dir, "play.yml")],
    env,
  };
}

/**
 * Runs Kubespray's real Calico role of a release against the lab's node-1 over SSH, from the venv of the Ansible
 * that release runs on, with this project's collection installed from its tarball beside Kubespray's tree (as a
 * fork adds it).
 */
export async function runKubespray(lab: Lab, run: KubesprayRun): Promise<PlaybookRun> {
  return runPlaybookIn(await kubesprayPlaybook(lab, run));
}

/** Runs a KubesprayPlaybook (its argv, or ARGV in its folder), keeping the output in its output.log. */
async function runPlaybookIn(
  { dir, argv, env }: KubesprayPlaybook,
  args: string[] = argv.slice(1),
): Promise<PlaybookRun> {
  const r = await execa(argv[0] ?? "", args, {
    reject: false,
    cwd: dir,
    env,
    extendEnv: false,
    all: true,
  });
  const output = r.all ?? "";
  writeFileSync(join(dir, "output.log"), output);
  return { exitCode: r.exitCode ?? -1, output, recap: parseRecap(output) };
}

/**
 * One of the fork's own playbooks (0: cluster.yml, 1: upgrade-cluster.yml, 2: scale.yml; the root's or playbooks/'s)
 * with README's play inserted as README says (fork-play.ts), run against the lab with ARGS (--tags=network,
 * --list-tasks) as runKubespray runs its plays: the same inventory, ansible.cfg, Ansible and installed collection.
 */
export async function runForkPlaybook(
  lab: Lab,
  run: Omit<KubesprayRun, "plays"> & { playbook: 0 | 1 | 2; args: string[] },
): Promise<PlaybookRun> {
  const p = await kubesprayPlaybook(lab, { ...run, plays: ["preflight"] });
  const fork = forkWithReadmePlay(run.release, kubesprayTree(run.release), p.dir);
  const playbook = fork.playbooks[run.playbook] ?? "";
  return runPlaybookIn(p, ["-i", join(p.dir, "hosts.yml"), ...run.args, playbook]);
}
