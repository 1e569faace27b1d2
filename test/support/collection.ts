// The collection as a user installs it: `make collection`'s tarball (dist/collection/) installed with a given
// Ansible's ansible-galaxy into a folder of its own, and that Ansible run with nothing of this checkout on any path:
// an ansible.cfg of the test's own (collections_path only: no library, action_plugins or roles_path), PATH without
// the checkout (its .venv, node_modules), no CALICO_ENCAP_BACKEND.

import { execa } from "execa";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { NAME, NAMESPACE } from "../../tools/collection-content.js";
import { REPO } from "./ansible.js";
import { live218, PINNED_218 } from "./builders.js";
import { calicoctlScript, kubectlScript } from "./calico-json.js";
import { fakeTools, type FakeTools } from "./fake-commands.js";
import { parseRecap, type PlaybookRun } from "./playbook.js";

const VERSION = (
  JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }
).version;
export const TARBALL = join(REPO, "dist", "collection", `${NAMESPACE}-${NAME}-${VERSION}.tar.gz`);

export interface InstalledCollection {
  /** The folder of the install: ansible.cfg, collections/, anything a test writes. */
  dir: string;
  /** The collection's own folder, ansible_collections/NAMESPACE/NAME. */
  installed: string;
  /** The environment every command runs with (and only it). */
  env: Record<string, string>;
  /** Runs bin/CMD of the Ansible under test in `dir`. */
  run(cmd: string, args: string[]): Promise<{ exitCode: number; all: string }>;
  /** ansible-playbook -i INVENTORY [-e VARS] [ARGS] PLAYBOOK, PLAYBOOK an FQCN or a file. */
  playbook(
    playbook: string,
    inventory: string,
    vars?: Record<string, unknown>,
    args?: string[],
  ): Promise<PlaybookRun>;
}

/** PATH without anything of the checkout: the Ansible under test, then the system's (node among them). */
export function userPath(bin: string): string {
  const system = (process.env.PATH ?? "").split(":").filter((p) => p && !p.startsWith(REPO));
  return [bin, ...system].join(":");
}

/** Installs TARBALL, this collection, with BIN's ansible-galaxy into a new folder. */
export async function installCollection(bin: string): Promise<InstalledCollection> {
  return installCollections(bin, [TARBALL]);
}

/**
 * Installs TARBALLS (ours, and others beside it) with BIN's ansible-galaxy into a new folder, without their
 * dependencies (the ansible package ships those Kubespray names); throws with its output when that fails.
 */
export async function installCollections(
  bin: string,
  tarballs: readonly string[],
): Promise<InstalledCollection> {
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-collection-"));
  const collections = join(dir, "collections");
  const env: Record<string, string> = {
    PATH: userPath(bin),
    HOME: process.env.HOME ?? dir,
    ANSIBLE_CONFIG: join(dir, "ansible.cfg"),
    ANSIBLE_NOCOLOR: "1",
    ANSIBLE_LOCALHOST_WARNING: "0",
    ANSIBLE_INVENTORY_UNPARSED_WARNING: "0",
  };
  writeFileSync(
    env.ANSIBLE_CONFIG as string,
    `[defaults]\ncollections_path = ${collections}\nhost_key_checking = False\ninterpreter_python = auto_silent\n`,
  );
  const run = async (cmd: string, args: string[]) => {
    const r = await execa(join(bin, cmd), args, {
      reject: false,
      cwd: dir,
      env,
      extendEnv: false,
      all: true,
    });
    return { exitCode: r.exitCode ?? -1, all: r.all ?? "" };
  };
  const install = await run("ansible-galaxy", [
    "collection",
    "install",
    "--no-deps",
    "-p",
    collections,
    ...tarballs,
  ]);
  if (install.exitCode !== 0)
    throw new Error(
      `ansible-galaxy collection install ${tarballs.join(" ")} failed:\n${install.all}`,
    );
  return {
    dir,
    installed: join(collections, "ansible_collections", NAMESPACE, NAME),
    env,
    run,
    async playbook(playbook, inventory, vars = {}, args = []) {
      const r = await run("ansible-playbook", [
        "-i",
        inventory,
        ...(Object.keys(vars).length ? ["-e", JSON.stringify(vars)] : []),
        ...args,
        playbook,
      ]);
      return { exitCode: r.exitCode, output: r.all, recap: parseRecap(r.all) };
    },
  };
}

/**
 * Builds the collection of the Kubespray release tree TREE with BIN's ansible-galaxy (its galaxy.yml, as Kubespray's
 * docs install it from git) into OUT and returns the tarball. The build's one extra need, distlib, is installed
 * once with --target under ~/.cache/calico-encap (test/collection/requirements-build.txt) and put on the build's
 * PYTHONPATH only: the Kubespray venv itself stays as its requirements.txt made it.
 */
export async function buildKubesprayCollection(
  bin: string,
  tree: string,
  out: string,
): Promise<string> {
  const target = join(homedir(), ".cache", "calico-encap", "collection-build");
  if (!existsSync(join(target, "distlib"))) {
    const r = await execa(
      join(bin, "python"),
      [
        "-m",
        "pip",
        "install",
        "--quiet",
        "--target",
        target,
        "-r",
        join(REPO, "test", "collection", "requirements-build.txt"),
      ],
      { reject: false, all: true },
    );
    if (r.exitCode !== 0)
      throw new Error(`pip install of the collection build's requirements failed:\n${r.all}`);
  }
  const r = await execa(
    join(bin, "ansible-galaxy"),
    ["collection", "build", tree, "--output-path", out],
    {
      reject: false,
      all: true,
      env: { PYTHONPATH: target },
    },
  );
  const m = /Created collection for \S+ at (\S+\.tar\.gz)/.exec(r.all ?? "");
  if (r.exitCode !== 0 || !m?.[1])
    throw new Error(`ansible-galaxy collection build ${tree} failed:\n${r.all}`);
  return m[1];
}

/**
 * A PATH that lacks the programs NAMES: one new folder of links to every other program of PATH's folders (the first of
 * each name, as PATH finds it).
 */
export function pathWithout(
  names: readonly string[],
  path: string = process.env.PATH ?? "",
): string {
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-path-"));
  const seen = new Set(names);
  for (const folder of path.split(":").filter(Boolean)) {
    let entries: string[];
    try {
      entries = readdirSync(folder);
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (seen.has(entry)) continue;
      seen.add(entry);
      symlinkSync(join(folder, entry), join(dir, entry));
    }
  }
  return dir;
}

/**
 * The venv of a Kubespray v2.31.0 user who installed this collection's Python requirements: Kubespray's own
 * requirements.txt and ansible/requirements.txt (the collection's, with the Node.js wheel), built once and cached by
 * test/ansible-versions/venv.sh. Returns its folder.
 */
export async function kubesprayCollectionVenv(): Promise<string> {
  const r = await execa(
    "bash",
    [join(REPO, "test", "ansible-versions", "venv.sh"), "kubespray-v2.31.0+collection"],
    { reject: false },
  );
  if (r.exitCode !== 0)
    throw new Error(`venv.sh kubespray-v2.31.0+collection failed:\n${r.stderr}`);
  return r.stdout.trim();
}

/**
 * A Kubespray 2.18 cluster (IPIP, bird) behind command stand-ins, and calico_pool_check's arguments of an inventory
 * pinned to it: the check passes.
 */
export function pinned218Check(): { tools: FakeTools; args: Record<string, unknown> } {
  const kubeconfig = "/etc/kubernetes/admin.conf";
  const live = live218();
  const tools = fakeTools(calicoctlScript(live), kubectlScript(live, kubeconfig));
  return {
    tools,
    args: {
      ...PINNED_218,
      calicoctl_path: tools.calicoctl,
      kubectl_path: tools.kubectl,
      kubeconfig,
    },
  };
}
