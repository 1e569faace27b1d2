// Running this repository's playbooks (ansible/playbooks) with the real ansible-playbook against an inventory,
// and reading the play recap.

import { execa } from "execa";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ansibleEnv, REPO, VENV_BIN } from "./ansible.js";

export const PLAYBOOKS = join(REPO, "ansible", "playbooks");

/** Whether the action plugins (bridge mode) are there; without them the modules run in module mode. */
export function bridgeInstalled(): boolean {
  return ["calico_pool_check", "calico_encap_migrate"].every((m) =>
    existsSync(join(REPO, "ansible", "action_plugins", `${m}.py`)),
  );
}

/**
 * Extra vars that let the modules run: none through the action plugins; in module mode, the backend of this
 * checkout (the target shares the controller's file system in the lab) through the role's environment.
 */
export function backendVars(): Record<string, unknown> {
  return bridgeInstalled()
    ? {}
    : { calico_encap_environment: { CALICO_ENCAP_BACKEND: join(REPO, "dist", "src", "cli.js") } };
}

export interface Recap {
  ok: number;
  changed: number;
  unreachable: number;
  failed: number;
  skipped: number;
}

export interface PlaybookRun {
  exitCode: number;
  output: string;
  /** The PLAY RECAP line of each host. */
  recap: Record<string, Recap>;
}

export function parseRecap(output: string): Record<string, Recap> {
  const recap: Record<string, Recap> = {};
  const tail = output.slice(output.lastIndexOf("PLAY RECAP"));
  for (const m of tail.matchAll(
    /^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)\s+skipped=(\d+)/gm,
  )) {
    const [ok, changed, unreachable, failed, skipped] = m.slice(2).map(Number);
    recap[m[1] as string] = {
      ok: ok ?? 0,
      changed: changed ?? 0,
      unreachable: unreachable ?? 0,
      failed: failed ?? 0,
      skipped: skipped ?? 0,
    };
  }
  return recap;
}

/**
 * The result of the first failed task, as the default callback prints it (`fatal: [host]: FAILED! => {...}`, the
 * JSON on one line or indented); null when no task failed.
 */
export function failedResult(output: string): Record<string, unknown> | null {
  const at = output.indexOf("FAILED! => {");
  if (at < 0) return null;
  const start = output.indexOf("{", at);
  let depth = 0;
  let inString = false;
  for (let i = start; i < output.length; i++) {
    const c = output[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0)
      return JSON.parse(output.slice(start, i + 1)) as Record<string, unknown>;
  }
  return null;
}

/** How runPlaybook runs a playbook: the extra vars, more arguments, env, and Ansible's bin directory. */
interface PlaybookOptions {
  extraVars?: Record<string, unknown>;
  args?: string[];
  env?: Record<string, string>;
  /** The bin directory of the Ansible to run (VENV_BIN unless given). */
  bin?: string;
}

/**
 * ansible-playbook -i INVENTORY ansible/playbooks/NAME.yml -e '<json>' [args], as runPlaybook and runPlaybookKilled
 * run it: the program, its arguments, execa's options.
 */
function playbookCommand(
  name: string,
  inventory: string,
  options: PlaybookOptions,
): [string, string[], { reject: false; cwd: string; env: NodeJS.ProcessEnv; all: true }] {
  const vars = { ...backendVars(), ...options.extraVars };
  const bin = options.bin ?? VENV_BIN;
  return [
    join(bin, "ansible-playbook"),
    [
      "-i",
      inventory,
      join(PLAYBOOKS, `${name}.yml`),
      ...(Object.keys(vars).length ? ["-e", JSON.stringify(vars)] : []),
      ...(options.args ?? []),
    ],
    { reject: false, cwd: REPO, env: ansibleEnv(options.env, bin), all: true },
  ];
}

export async function runPlaybook(
  name: string,
  inventory: string,
  options: PlaybookOptions = {},
): Promise<PlaybookRun> {
  const r = await execa(...playbookCommand(name, inventory, options));
  const output = r.all ?? "";
  return { exitCode: r.exitCode ?? -1, output, recap: parseRecap(output) };
}

/** Every process under `pid` (its children, theirs, and so on), read from /proc's parent links. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const out: number[] = [];
  const queue = [pid];
  for (let p = queue.shift(); p !== undefined; p = queue.shift()) {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

/** SIGSTOPs a process and everything under it (so that none forks away meanwhile), then SIGKILLs them all. */
function killTree(pid: number): void {
  const signal = (pids: number[], s: NodeJS.Signals): void => {
    for (const p of pids)
      try {
        process.kill(p, s);
      } catch {
        // gone already
      }
  };
  let tree = [pid];
  for (let round = 0; round < 3; round++) {
    signal(tree, "SIGSTOP");
    tree = [pid, ...descendants(pid)];
  }
  signal(tree, "SIGSTOP");
  signal(tree, "SIGKILL");
}

/**
 * runPlaybook, SIGKILLed with every process under it as soon as `killWhen` says so, given the play's output so far;
 * asked every `everyMs` while the play runs. `killed` says whether it was. The whole tree, not the process group:
 * ansible-core's workers start sessions of their own (WorkerProcess._detach calls setsid), so a killed
 * ansible-playbook alone leaves its worker, and the calico-encap backend under it, running. A command the backend runs
 * on a target over SSH is not under it: it may still finish after the kill.
 */
export async function runPlaybookKilled(
  name: string,
  inventory: string,
  extraVars: Record<string, unknown>,
  killWhen: (output: string) => Promise<boolean>,
  everyMs = 300,
): Promise<PlaybookRun & { killed: boolean }> {
  const child = execa(...playbookCommand(name, inventory, { extraVars }));
  let sofar = "";
  child.all?.on("data", (chunk: Buffer | string) => {
    sofar += chunk.toString();
  });
  let done = false;
  let killed = false;
  const watch = (async () => {
    while (!done) {
      if (await killWhen(sofar).catch(() => false)) {
        if (!done && child.pid !== undefined) {
          killTree(child.pid);
          killed = true;
        }
        return;
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  const r = await child;
  done = true;
  await watch;
  const output = r.all ?? sofar;
  return { exitCode: r.exitCode ?? -1, output, recap: parseRecap(output), killed };
}
