// Running the real ansible, ansible-playbook and ansible-doc against this repository's ansible.cfg: from the
// project's .venv, or from the venv in CALICO_ENCAP_ANSIBLE_VENV (make test-ansible-versions sets it to each
// Kubespray Ansible built by test/ansible-versions/venv.sh).

import { execa } from "execa";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
/** The bin directory of the Ansible under test. */
export const VENV_BIN = join(process.env.CALICO_ENCAP_ANSIBLE_VENV || join(REPO, ".venv"), "bin");

/** The environment for Ansible from the bin directory `bin` (VENV_BIN unless given). */
export function ansibleEnv(
  extra: Record<string, string> = {},
  bin: string = VENV_BIN,
): Record<string, string> {
  return {
    ANSIBLE_CONFIG: join(REPO, "ansible.cfg"),
    // The Ansible under test first; then .venv/bin for calico-encap (make setup links it there) in module mode.
    PATH: `${bin}:${join(REPO, ".venv", "bin")}:${process.env.PATH ?? ""}`,
    ANSIBLE_NOCOLOR: "1",
    ANSIBLE_LOCALHOST_WARNING: "0",
    ANSIBLE_INVENTORY_UNPARSED_WARNING: "0",
    ...extra,
  };
}

export interface TaskResult {
  failed?: boolean;
  changed?: boolean;
  msg?: string;
  skipped?: boolean;
  warnings?: string[];
  [key: string]: unknown;
}

/**
 * Runs one task on localhost with ansible-playbook and returns its registered result (written to a file by a
 * last task, since ansible-core 2.19 ships no json callback) and the play's output; `after` tasks run between
 * them and may replace task_result.
 */
export async function runTask(
  task: Record<string, unknown>,
  options: {
    args?: string[];
    env?: Record<string, string>;
    after?: Record<string, unknown>[];
  } = {},
): Promise<{ result: TaskResult; exitCode: number; stdout: string }> {
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-play-"));
  const playbook = join(dir, "play.yml");
  const resultFile = join(dir, "result.json");
  const tasks = [
    { ...task, register: "task_result", ignore_errors: true },
    ...(options.after ?? []),
    {
      name: "Save the result",
      "ansible.builtin.copy": {
        content: "{{ task_result | to_json }}",
        dest: resultFile,
        mode: "0600",
      },
      check_mode: false,
    },
  ];
  writeFileSync(
    playbook,
    stringify([{ hosts: "localhost", gather_facts: false, connection: "local", tasks }]),
  );
  const r = await execa(
    join(VENV_BIN, "ansible-playbook"),
    [
      "-i",
      "localhost,",
      "-e",
      `ansible_python_interpreter=${join(VENV_BIN, "python")}`,
      playbook,
      ...(options.args ?? []),
    ],
    {
      reject: false,
      cwd: REPO,
      env: ansibleEnv(options.env),
      all: true,
    },
  );
  let result: TaskResult;
  try {
    result = JSON.parse(readFileSync(resultFile, "utf8")) as TaskResult;
  } catch {
    throw new Error(`no task result from ansible-playbook (exit ${r.exitCode}): ${r.all ?? ""}`);
  }
  return { result, exitCode: r.exitCode ?? -1, stdout: r.all ?? "" };
}

/** Runs `ansible localhost -m MODULE -a ARGS` and returns its combined output. */
export async function runAdhoc(
  module: string,
  args: string,
  options: { extra?: string[]; env?: Record<string, string> } = {},
): Promise<{ output: string; exitCode: number }> {
  const r = await execa(
    join(VENV_BIN, "ansible"),
    [
      "localhost",
      "-c",
      "local",
      "-e",
      `ansible_python_interpreter=${join(VENV_BIN, "python")}`,
      "-m",
      module,
      "-a",
      args,
      ...(options.extra ?? []),
    ],
    { reject: false, cwd: REPO, env: ansibleEnv(options.env), all: true },
  );
  return { output: r.all ?? "", exitCode: r.exitCode ?? -1 };
}

/** Whether the ansible-core of VENV_BIN is older than `version` ("2.15"). */
export async function coreBefore(version: string): Promise<boolean> {
  const r = await execa(join(VENV_BIN, "python"), [
    "-c",
    "import ansible.release as r; print(r.__version__)",
  ]);
  const have = r.stdout.trim().split(".").map(Number);
  const want = version.split(".").map(Number);
  for (let i = 0; i < want.length; i++) {
    const h = have[i] ?? 0;
    const w = want[i] ?? 0;
    if (h !== w) return h < w;
  }
  return false;
}

export async function ansibleDoc(module: string): Promise<string> {
  const r = await execa(join(VENV_BIN, "ansible-doc"), [module], {
    cwd: REPO,
    env: ansibleEnv({ PAGER: "cat" }),
  });
  return r.stdout;
}
