// A lab node's host view, as a process: one long-lived process per node sits in the node's network namespace and
// in a mount namespace of its own in which the node's private /var/lib/calico, /var/run/calico, /var/log/calico and
// /etc/calico (folders under <LAB_STATE>/nodes/<node>/) are bind-mounted over the machine's. Everything the node
// runs (calico-node's processes, probes, the CNI plugin) is started inside both namespaces with nsenter, the way a
// privileged hostNetwork container with hostPath volumes sees a real node. Mount propagation is `slave`, so network
// namespaces created later on the machine (a pod's, for the CNI plugin) are visible inside.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, openSync, closeSync, existsSync } from "node:fs";
import { join } from "node:path";

/** The node folders, and the machine path each is mounted over. */
export const NODE_MOUNTS: readonly { dir: string; target: string }[] = [
  { dir: "var/lib/calico", target: "/var/lib/calico" },
  { dir: "var/run/calico", target: "/run/calico" },
  { dir: "var/log/calico", target: "/var/log/calico" },
  { dir: "etc/calico", target: "/etc/calico" },
];

export interface ExecResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** stdout and stderr as they came. */
  output: string;
  stdout: string;
  timedOut: boolean;
}

export class Sandbox {
  private constructor(
    readonly node: string,
    readonly netns: string,
    readonly root: string,
    readonly binDir: string,
    private readonly holder: ChildProcess,
  ) {}

  /** Creates the node's folders and its namespace holder; resolves once the mounts are in place. */
  static async start(node: string, netns: string, root: string, binDir: string): Promise<Sandbox> {
    for (const m of NODE_MOUNTS) {
      mkdirSync(join(root, m.dir), { recursive: true });
      mkdirSync(m.target, { recursive: true });
    }
    const script =
      'set -e; i=0; for t in /var/lib/calico /run/calico /var/log/calico /etc/calico; do i=$((i+1)); eval d=\\${$i}; mount --bind "$d" "$t"; done; echo mounted; exec sleep infinity';
    const holder = spawn(
      "ip",
      [
        "netns",
        "exec",
        netns,
        "unshare",
        "--mount",
        "--propagation",
        "slave",
        "--",
        "sh",
        "-c",
        script,
        "sh",
        ...NODE_MOUNTS.map((m) => join(root, m.dir)),
      ],
      { stdio: ["ignore", "pipe", "pipe"], detached: true },
    );
    await new Promise<void>((resolve, reject) => {
      let out = "";
      const t = setTimeout(
        () => reject(new Error(`${node}: sandbox did not start: ${out}`)),
        10000,
      );
      holder.stdout?.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("mounted")) {
          clearTimeout(t);
          resolve();
        }
      });
      holder.stderr?.on("data", (d: Buffer) => (out += d.toString()));
      holder.on("exit", (code) => {
        clearTimeout(t);
        reject(new Error(`${node}: sandbox exited (${code}): ${out}`));
      });
    });
    holder.removeAllListeners("exit");
    holder.unref();
    return new Sandbox(node, netns, root, binDir, holder);
  }

  get pid(): number {
    return this.holder.pid ?? 0;
  }

  private argv(argv: readonly string[]): string[] {
    // `sleep infinity` is the sandbox's pid: its namespaces are the node's.
    return ["-t", String(this.pid), "-m", "-n", "--wd=/", "--", ...argv];
  }

  envFor(env: Readonly<Record<string, string>>): Record<string, string> {
    return {
      ...env,
      PATH: `${this.binDir}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
    };
  }

  /** Starts a long-running process in the node; its output is appended to logFile. */
  spawn(
    argv: readonly string[],
    env: Readonly<Record<string, string>>,
    logFile: string,
  ): ChildProcess {
    const fd = openSync(logFile, "a");
    try {
      return spawn("nsenter", this.argv(argv), {
        env: this.envFor(env),
        stdio: ["ignore", fd, fd],
        detached: true,
      });
    } finally {
      closeSync(fd);
    }
  }

  /** Runs a command in the node to completion (probes, the CNI plugin), killing it after timeoutMs. */
  exec(
    argv: readonly string[],
    env: Readonly<Record<string, string>>,
    timeoutMs: number,
    stdin?: string,
  ): Promise<ExecResult> {
    return new Promise((resolve) => {
      const child = spawn("nsenter", this.argv(argv), {
        env: this.envFor(env),
        stdio: ["pipe", "pipe", "pipe"],
      });
      let output = "";
      let stdout = "";
      let timedOut = false;
      const t = setTimeout(() => {
        timedOut = true;
        child.kill("SIGKILL");
      }, timeoutMs);
      child.stdout.on("data", (d: Buffer) => {
        output += d.toString();
        stdout += d.toString();
      });
      child.stderr.on("data", (d: Buffer) => (output += d.toString()));
      child.on("error", (e) => (output += String(e)));
      child.on("close", (code, signal) => {
        clearTimeout(t);
        resolve({ code, signal, output, stdout, timedOut });
      });
      // A command that exits without reading its stdin (a probe, a CNI plugin that failed early) closes the pipe:
      // the write then fails with EPIPE, which must not end the kubelet (it did, under load, on 2026-12-01).
      child.stdin.on("error", (e: NodeJS.ErrnoException) => {
        if (e.code !== "EPIPE") output += String(e);
      });
      child.stdin.end(stdin ?? "");
    });
  }

  stop(): void {
    try {
      if (this.holder.pid) process.kill(this.holder.pid, "SIGKILL");
    } catch {
      // gone already
    }
  }

  static exists(netns: string): boolean {
    return existsSync(`/run/netns/${netns}`);
  }
}
