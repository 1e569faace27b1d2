// The real MigrationIo: the datastore through a CommandRunner, the Lease lock, the wall clock.

import type { ClusterObservation } from "../calico/shared/observation.js";
import type { Write } from "../calico/plan/plan.js";
import { DatastoreError, commandLine } from "../cluster/errors.js";
import { localHolder, localPlace } from "../cluster/lease.js";
import type { Clock } from "../cluster/lock.js";
import { Lock, LockLost } from "../cluster/lock.js";
import type { ObserveOptions } from "../cluster/observe.js";
import { observeForMigration, readBlockAffinities } from "../cluster/observe-migration.js";
import type { Permission } from "../cluster/runner.js";
import { canICommand, deniedPermissions, permissionsFor } from "../cluster/permissions.js";
import { kubectlBase } from "../cluster/read-kubectl.js";
import type { BatchCommand, CommandResult, CommandRunner } from "../cluster/runner.js";
import { runBatch } from "../cluster/runner.js";
import type { WriteContext } from "../cluster/write.js";
import { commandsFor } from "../cluster/write.js";
import type { BlockAffinity } from "../calico/plan/fallback-routes.js";
import { WriteFailed, brief, type MigrationIo } from "./types.js";

export interface LockTiming {
  /** leaseDurationSeconds this run writes. */
  durationSeconds: number;
  /** wait_timeout: the longest it watches another run's Lease. */
  maxWatchSeconds: number;
  /** wait_sleep. */
  pollSeconds: number;
}

const WALL_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** The real MigrationIo; `clock` is the wall clock but in tests. */
export function realIo(
  runner: CommandRunner,
  o: ObserveOptions,
  w: Omit<WriteContext, "client">,
  lock: LockTiming,
  log: (verbosity: number, msg: string) => void,
  clock: Clock = WALL_CLOCK,
): MigrationIo & {
  client(): WriteContext["client"];
  deniedPermissions(
    writes: readonly Write[],
    reads?: readonly Permission[],
  ): Promise<{ denied: Permission[]; unknown: string[] }>;
  blockAffinities(): Promise<BlockAffinity[]>;
} {
  let client: WriteContext["client"] = o.client === "kubectl" ? "kubectl" : "calicoctl";
  const place = localPlace();
  const lease = new Lock({
    runner,
    kubectl: kubectlBase(o.kubectlPath, o.kubeconfig),
    holder: localHolder(place),
    here: place,
    timeoutSeconds: o.timeoutSeconds,
    clock,
    log,
    ...lock,
  });
  /** One observation; with `renewal`, that command rides in the observation's first batch. */
  const observe = async (
    renewal: BatchCommand | null,
  ): Promise<{ obs: ClusterObservation; renewal: Promise<CommandResult> | null }> => {
    let calls = 0;
    let sent: Promise<CommandResult> | null = null;
    const counting: CommandRunner = {
      run: (argv, opts) => (calls++, runner.run(argv, opts)),
      runAll: (commands) => {
        calls += commands.length;
        if (renewal === null || sent !== null) return runBatch(runner, commands);
        const all = runBatch(runner, [renewal, ...commands]);
        sent = all.then((r) => r[0] as CommandResult);
        return all.then((r) => r.slice(1));
      },
    };
    const obs = await observeForMigration(counting, o).catch((e: unknown) => {
      throw Object.assign(e instanceof Error ? e : new Error(String(e)), { renewal: sent });
    });
    client = obs.live.client;
    log(3, `observed ${obs.nodes.length} nodes with ${calls} datastore calls`);
    return { obs, renewal: sent };
  };
  return {
    client: () => client,
    /** What the kubeconfig's identity may not do of what the plan's writes and the Lease need: one batch of can-i. */
    async deniedPermissions(writes: readonly Write[], reads: readonly Permission[] = []) {
      const kubectl = kubectlBase(o.kubectlPath, o.kubeconfig);
      const asked = permissionsFor(writes, { ...w, client }, reads);
      const answers = await runBatch(
        runner,
        asked.map((p) => canICommand(kubectl, p, o.timeoutSeconds)),
      );
      return deniedPermissions(asked, answers);
    },
    async observe() {
      return (await observe(null)).obs;
    },
    blockAffinities: () => readBlockAffinities(runner, o),
    async poll() {
      const renewal = lease.renewal();
      let renewError: unknown = null;
      const take = async (sent: Promise<CommandResult> | null): Promise<void> => {
        try {
          if (renewal && sent) await lease.renewed(renewal.argv, await sent);
          else await lease.renew();
        } catch (e) {
          if (e instanceof LockLost) throw e;
          renewError = e;
        }
      };
      try {
        const { obs, renewal: sent } = await observe(renewal);
        await take(sent);
        return { obs, renewError };
      } catch (e) {
        if (e instanceof LockLost) throw e;
        await take((e as { renewal?: Promise<CommandResult> | null }).renewal ?? null);
        return { observeError: e, renewError };
      }
    },
    async write(write: Write) {
      const sent: string[] = [];
      for (const cmd of commandsFor(write, { ...w, client })) {
        log(2, `writing ${cmd.what}`);
        sent.push(cmd.what);
        let r: CommandResult;
        try {
          r = await runner.run(cmd.argv, {
            timeoutSeconds: o.timeoutSeconds,
            ...(cmd.stdin === undefined ? {} : { stdin: cmd.stdin }),
          });
        } catch (e) {
          throw new WriteFailed(sent, `${cmd.argv[0] ?? "the command"} could not run: ${brief(e)}`);
        }
        if (r.timedOut)
          throw new WriteFailed(
            sent,
            `${cmd.what}: timed out after ${o.timeoutSeconds} s; it may have been applied`,
          );
        if (r.rc !== 0)
          throw new WriteFailed(
            sent,
            `${commandLine(cmd.argv)} ${DatastoreError.failed(cmd.argv, r, "").observed}`,
          );
      }
    },
    lock: lease,
    clock,
    log,
  };
}
