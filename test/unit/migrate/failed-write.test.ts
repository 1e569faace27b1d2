// A write that fails once it has begun (issue: "a failed write disappears from the result"): the step is reported
// with what was sent and what came back, counts as changed, and the run rolls back. The backend step is two
// commands (calico-config, then the DaemonSet): here the second fails, or times out after it was applied.

import { expect } from "chai";
import type { ClusterObservation } from "../../../src/calico/shared/observation.js";
import type { Write } from "../../../src/calico/plan/plan.js";
import type { CommandResult, CommandRunner, RunOptions } from "../../../src/cluster/runner.js";
import { migrate } from "../../../src/migrate/executor.js";
import { MigrationFailed, WriteFailed, type MigrationIo } from "../../../src/migrate/types.js";
import { realIo } from "../../../src/migrate/io.js";
import { applyWrite, converge, start, target } from "../../support/sim-cluster.js";
import { rejection } from "../../support/rejection.js";
import { writeContext } from "../../support/builders.js";

const WAIT = { waitTimeoutSeconds: 30, waitSleepSeconds: 1 };

/** A simulated cluster whose backend write applies calico-config, then fails on the DaemonSet. */
class HalfBackendIo implements MigrationIo {
  writes: Write[] = [];
  private t = 0;
  constructor(
    public state: ClusterObservation,
    private readonly failure: "refused" | "timed out after applied",
  ) {}
  observe(): Promise<ClusterObservation> {
    this.state = converge(this.state);
    return Promise.resolve(this.state);
  }
  write(w: Write): Promise<void> {
    this.writes.push(w);
    if (w.kind === "backend" && this.writes.filter((x) => x.kind === "backend").length === 1) {
      // calico-config is patched ...
      this.state = {
        ...this.state,
        live: { ...this.state.live, configMapBackend: w.backend },
      };
      // ... and the DaemonSet's patch fails, or times out once applied.
      if (this.failure === "timed out after applied") this.state = applyWrite(this.state, w);
      return Promise.reject(
        new WriteFailed(
          ["ConfigMap calico-config data.calico_backend", "DaemonSet calico-node template"],
          this.failure === "refused"
            ? "kubectl patch daemonset calico-node failed with exit code 1, stderr: Internal error"
            : "DaemonSet calico-node template: timed out after 30 s; it may have been applied",
        ),
      );
    }
    this.state = applyWrite(this.state, w);
    return Promise.resolve();
  }
  lock = {
    acquire: (): Promise<void> => Promise.resolve(),
    renew: (): Promise<void> => Promise.resolve(),
    release: (): Promise<void> => Promise.resolve(),
  };
  clock = {
    now: (): number => this.t,
    sleep: (ms: number): Promise<void> => {
      this.t += ms;
      return Promise.resolve();
    },
  };
  log(): void {}
}

describe("a write that fails once sent", () => {
  for (const how of ["refused", "timed out after applied"] as const)
    it(`reports the backend step whose DaemonSet patch ${how}, sent and answered, and rolls back to bird`, async () => {
      const io = new HalfBackendIo(start("IPIP Always", "bird", "explicit"), how);
      const err = await rejection<MigrationFailed>(
        migrate(io, target("VXLAN Always", "vxlan"), WAIT),
      );
      expect(err).to.be.instanceOf(MigrationFailed);
      const step = err.steps.find((s) => s.write?.kind === "backend" && s.error !== undefined);
      expect(step, JSON.stringify(err.steps)).to.deep.include({
        settled: false,
        sent: ["ConfigMap calico-config data.calico_backend", "DaemonSet calico-node template"],
      });
      expect(step?.error).to.match(how === "refused" ? /exit code 1/ : /may have been applied/);
      expect(err.message).to.match(/its write failed/);
      expect(err.rolledBack, err.message).to.equal(true);
      expect(io.state.live.configMapBackend, "calico-config back at bird").to.equal("bird");
      expect(io.state.live.pools[0]).to.deep.include({ ipipMode: "Always", vxlanMode: "Never" });
    });

  it("the real io names each command sent, the failed one last, and what came back; a timeout may have applied", async () => {
    const answers: CommandResult[] = [
      { rc: 0, stdout: "", stderr: "", timedOut: false },
      {
        rc: 1,
        stdout: "",
        stderr: "Error from server: etcdserver: request timed out",
        timedOut: false,
      },
    ];
    const runner: CommandRunner = {
      run: (_argv: readonly string[], _o: RunOptions) =>
        Promise.resolve(answers.shift() ?? { rc: 0, stdout: "", stderr: "", timedOut: false }),
    };
    const io = realIo(
      runner,
      {
        client: "kubectl",
        datastore: "kdd",
        calicoctlPath: "calicoctl",
        kubectlPath: "kubectl",
        kubeconfig: "/k",
        timeoutSeconds: 5,
      },
      writeContext({ calicoctlPath: "calicoctl", kubectlPath: "kubectl", kubeconfig: "/k" }),
      { durationSeconds: 30, maxWatchSeconds: 60, pollSeconds: 1 },
      () => undefined,
    );
    const e = await io.write({ kind: "backend", from: "bird", backend: "vxlan" }).then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).to.be.instanceOf(WriteFailed);
    const w = e as WriteFailed;
    expect(w.sent).to.have.length(2);
    expect(w.sent[0]).to.match(/calico-config/);
    expect(w.error).to.match(
      /exit code 1, stderr: Error from server: etcdserver: request timed out/,
    );
    answers.push(
      { rc: 0, stdout: "", stderr: "", timedOut: false },
      { rc: -1, stdout: "", stderr: "", timedOut: true },
    );
    const t = await io.write({ kind: "backend", from: "bird", backend: "vxlan" }).then(
      () => null,
      (x: unknown) => x as WriteFailed,
    );
    expect(t?.error).to.match(/timed out after 5 s; it may have been applied/);
  });
});
