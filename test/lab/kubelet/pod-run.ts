// One calico-node pod on one lab node, run the way kubelet and the image's runit would run it: the init steps in
// order (a failure fails the container, which kubelet restarts with a back-off), then each service, restarted by
// "runit" when it exits (Felix exits with 129 by design when its encapsulation changes), and the template's own
// readiness and liveness probes (a failed liveness restarts the container: every process, and the init again).
//
// How the container stops (pod deleted, or restarted after a failed liveness probe): calico/node's command is
// start_runit (node/Dockerfile.amd64 `CMD ["start_runit"]`), which ends with `exec runsvdir -P /etc/service/enabled`
// (node/filesystem/sbin/start_runit, Calico v3.31.0), so runsvdir is the container's PID 1. The runtime sends it
// SIGTERM; runsvdir "exits with 0 immediately" on TERM (runsvdir(8)) without signalling its runsv children, and when
// the init of a PID namespace exits the kernel kills every other process in it with SIGKILL. So Felix, confd and BIRD
// die by SIGKILL: BIRD sends its peers no Cease, the kernel routes stay (`persist` in Calico's bird.cfg.template),
// and its peers keep its routes for the graceful restart time (`graceful restart` in the template's bgp_template).
// "term" is the lab's earlier model, kept as a yardstick (LAB_POD_STOP=term, or the word in <LAB_STATE>/pod-stop, read
// at each stop): every service gets SIGTERM and 2 s, and BIRD closes its sessions cleanly, so its peers withdraw its
// routes at once.

import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import type { Container } from "./pod-env.js";
import {
  afterProbe,
  initialProbe,
  probeDue,
  probeSettings,
  type ProbeSettings,
  type ProbeState,
} from "./probes.js";
import { type RunPlan, type Service, NODENAME_FILE, runPlan } from "./runit.js";
import type { Sandbox } from "./sandbox.js";

export interface ServiceState {
  name: string;
  pid: number | null;
  running: boolean;
  starts: number;
  lastExit: string | null;
}

interface Running {
  svc: Service;
  child: ChildProcess | null;
  startedAt: number;
  starts: number;
  lastExit: string | null;
  restartTimer: NodeJS.Timeout | null;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface PodRunOptions {
  maxProbePeriodMs: number;
  /** Services the lab's fault injection keeps from running on this node (e.g. allocate-tunnel-addrs). */
  suppressed: ReadonlySet<string>;
  /** How the container's processes end: "kill" as the runtime ends calico/node's (above), "term" the lab's old model. */
  containerStop: () => "kill" | "term";
  log: (msg: string) => void;
}

export class PodRun {
  readonly startedAt = Date.now();
  phase: "init" | "running" | "stopped" | "crashed" = "init";
  restartCount = 0;
  lastInitError: string | null = null;
  plan: RunPlan | null = null;
  readiness: ProbeState = initialProbe("readiness");
  liveness: ProbeState = initialProbe("liveness");
  private runningSince = 0;
  private readonly services = new Map<string, Running>();
  private stopping = false;
  private stuck = false;
  private probing = false;
  private readonly readinessSettings: ProbeSettings;
  private readonly livenessSettings: ProbeSettings;
  private readonly logDir: string;

  constructor(
    readonly sandbox: Sandbox,
    readonly uid: string,
    readonly name: string,
    readonly container: Container,
    readonly env: Readonly<Record<string, string>>,
    private readonly opt: PodRunOptions,
  ) {
    this.readinessSettings = probeSettings(container.readinessProbe, opt.maxProbePeriodMs);
    this.livenessSettings = probeSettings(container.livenessProbe, opt.maxProbePeriodMs);
    this.logDir = join(sandbox.root, "log", name);
    mkdirSync(this.logDir, { recursive: true });
  }

  get ready(): boolean {
    return (
      this.phase === "running" && (this.readinessSettings.command === null || this.readiness.ok)
    );
  }

  serviceStates(): ServiceState[] {
    return [...this.services.values()].map((r) => ({
      name: r.svc.name,
      pid: r.child?.pid ?? null,
      running: r.child !== null && r.child.exitCode === null && r.child.signalCode === null,
      starts: r.starts,
      lastExit: r.lastExit,
    }));
  }

  /** Runs the init steps, then the services; on an init failure, retries with kubelet's back-off. */
  async start(): Promise<void> {
    let backoff = 1000;
    while (!this.stopping) {
      const err = await this.init();
      if (err === null) break;
      this.lastInitError = err;
      this.phase = "crashed";
      this.restartCount++;
      this.opt.log(
        `${this.sandbox.node}: ${this.name} init failed (${err}); retrying in ${backoff} ms`,
      );
      await sleep(backoff);
      backoff = Math.min(backoff * 2, 10000);
    }
    if (this.stopping || !this.plan) return;
    this.phase = "running";
    this.runningSince = Date.now();
    this.readiness = initialProbe("readiness");
    this.liveness = initialProbe("liveness");
    for (const svc of this.plan.services) {
      if (this.opt.suppressed.has(svc.name)) {
        this.opt.log(`${this.sandbox.node}: ${svc.name} held back by the lab's fault injection`);
        continue;
      }
      this.launch({
        svc,
        child: null,
        startedAt: 0,
        starts: 0,
        lastExit: null,
        restartTimer: null,
      });
    }
  }

  private async init(): Promise<string | null> {
    this.phase = "init";
    const step0 = runPlan(this.env, "");
    for (const cmd of step0.init.slice(0, 1)) {
      const r = await this.sandbox.exec(cmd.argv, { ...this.env, ...cmd.env }, 120000);
      this.appendLog("init", cmd.name, r.output);
      if (r.code !== 0) return `${cmd.name} exited ${r.code ?? r.signal}`;
    }
    const nodenameFile = join(
      this.sandbox.root,
      NODENAME_FILE.replace(/^\/var\/lib\/calico\//, "var/lib/calico/"),
    );
    if (!existsSync(nodenameFile)) return `${NODENAME_FILE} does not exist`;
    const nodename = readFileSync(nodenameFile, "utf8").trim();
    this.plan = runPlan(this.env, nodename);
    for (const cmd of this.plan.init.slice(1)) {
      if (this.opt.suppressed.has("allocate-tunnel-addrs")) continue;
      const r = await this.sandbox.exec(cmd.argv, { ...this.env, ...cmd.env }, 120000);
      this.appendLog("init", cmd.name, r.output);
      if (r.code !== 0) return `${cmd.name} exited ${r.code ?? r.signal}`;
    }
    return null;
  }

  private appendLog(kind: string, name: string, text: string): void {
    writeFileSync(join(this.logDir, `${kind}-${name}.log`), text, { flag: "a" });
  }

  private launch(r: Running): void {
    this.services.set(r.svc.name, r);
    if (this.stopping) return;
    if (r.svc.waitForFile) {
      const f = join(
        this.sandbox.root,
        r.svc.waitForFile.replace(/^\/etc\/calico\//, "etc/calico/"),
      );
      if (!existsSync(f)) {
        r.restartTimer = setTimeout(() => this.launch(r), 500);
        return;
      }
    }
    r.starts++;
    r.startedAt = Date.now();
    const child = this.sandbox.spawn(
      r.svc.argv,
      { ...this.env, ...r.svc.env },
      join(this.logDir, `${r.svc.name}.log`),
    );
    r.child = child;
    if (this.stuck && r.svc.name === "allocate-tunnel-addrs" && child.pid)
      process.kill(child.pid, "SIGSTOP");
    if (child.pid) {
      // confd's reload_cmd is `sv hup bird`: the node's `sv` reads the pid runit would know.
      const dir = join(this.sandbox.root, "var/run/calico/runit");
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${r.svc.name}.pid`), `${child.pid}\n`);
    }
    child.on("exit", (code, signal) => {
      r.lastExit = signal ? `signal ${signal}` : `code ${code}`;
      if (this.stopping) return;
      this.opt.log(`${this.sandbox.node}: ${r.svc.name} exited (${r.lastExit}); runit restarts it`);
      // runsv restarts at once, or after 1 s when the process ran for less than 1 s.
      const ranFor = Date.now() - r.startedAt;
      r.restartTimer = setTimeout(() => this.launch(r), ranFor < 1000 ? 1000 : 0);
    });
  }

  /**
   * The lab's fault injection: a stuck allocate-tunnel-addrs is a stopped process (SIGSTOP), which holds its
   * watch and answers nothing, the way a hung allocator would; SIGCONT lets it go on.
   */
  setStuck(stuck: boolean): void {
    if (stuck === this.stuck) return;
    this.stuck = stuck;
    const r = this.services.get("allocate-tunnel-addrs");
    const pid = r?.child?.pid;
    if (pid) {
      try {
        process.kill(pid, stuck ? "SIGSTOP" : "SIGCONT");
      } catch {
        // exited meanwhile; runit starts it again, and launch() stops it again while stuck
      }
    }
    this.opt.log(
      `${this.sandbox.node}: allocate-tunnel-addrs ${stuck ? "stopped (fault injected)" : "continued"}`,
    );
  }

  /** Runs the probes that are due; a liveness failure past its threshold restarts the container. */
  async tick(now: number): Promise<void> {
    if (this.phase !== "running" || this.probing || this.stopping) return;
    this.probing = true;
    try {
      if (probeDue(this.readinessSettings, this.readiness, this.runningSince, now)) {
        const ok = await this.probe(this.readinessSettings);
        this.readiness = afterProbe(
          this.readinessSettings,
          this.readiness,
          ok.passed,
          ok.output,
          Date.now(),
        );
      }
      if (probeDue(this.livenessSettings, this.liveness, this.runningSince, now)) {
        const ok = await this.probe(this.livenessSettings);
        this.liveness = afterProbe(
          this.livenessSettings,
          this.liveness,
          ok.passed,
          ok.output,
          Date.now(),
        );
        if (!this.liveness.ok && !this.stopping) {
          this.opt.log(
            `${this.sandbox.node}: liveness failed (${ok.output.trim()}); restarting the container`,
          );
          await this.stopServices();
          this.restartCount++;
          this.stopping = false;
          void this.start();
        }
      }
    } finally {
      this.probing = false;
    }
  }

  private async probe(s: ProbeSettings): Promise<{ passed: boolean; output: string }> {
    const argv = (s.command ?? []).map((a, i) =>
      i === 0 && basename(a) === "calico-node" ? join(this.sandbox.binDir, "calico-node") : a,
    );
    const r = await this.sandbox.exec(argv, this.env, s.timeoutMs);
    return { passed: r.code === 0 && !r.timedOut, output: r.output };
  }

  private async stopServices(): Promise<void> {
    this.stopping = true;
    const signal = this.opt.containerStop() === "kill" ? "SIGKILL" : "SIGTERM";
    const children: ChildProcess[] = [];
    for (const r of this.services.values()) {
      if (r.restartTimer) clearTimeout(r.restartTimer);
      if (r.child && r.child.exitCode === null && r.child.signalCode === null) {
        children.push(r.child);
        r.child.kill(signal);
      }
    }
    const deadline = Date.now() + 2000;
    while (
      children.some((c) => c.exitCode === null && c.signalCode === null) &&
      Date.now() < deadline
    ) {
      await sleep(50);
    }
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    this.services.clear();
  }

  /** The pod is gone or terminating: every process stops (terminationGracePeriodSeconds is 0 in the template). */
  async stop(): Promise<void> {
    await this.stopServices();
    this.phase = "stopped";
  }
}
