// calico_encap_migrate: args -> observe -> plan -> (check mode: report) -> migrate -> result.

import optionsSchema from "../../schemas/calico_encap_migrate.options.json" with { type: "json" };
import {
  fallbackRoutes,
  planUntil,
  STOP_BEFORE_ON_BIRD_PATH,
  STOP_BEFORE_POOL_SWITCH,
  stopBeforeRefusal,
  stopOnBirdPath,
  type StopBefore,
  WITHOUT_STOP_BEFORE,
} from "../calico/plan/fallback-routes.js";
import { routesKnownAtStart, type FallbackRoute } from "../calico/plan/fallback-routes.js";
import { plan, unsettled } from "../calico/plan/plan.js";
import { skippedNodeWarnings } from "../calico/plan/scheduling.js";
import { LockRefused } from "../cluster/lock.js";
import { BLOCK_AFFINITIES_READ, describePermission } from "../cluster/permissions.js";
import { observeOptionsFrom } from "../cluster/observe.js";
import type { CommandRunner } from "../cluster/runner.js";
import type { CalicoEncapMigrateParams } from "../generated/calico_encap_migrate.options.js";
import { validate } from "../generated/calico_encap_migrate.options.validator.js";
import { migrationDiff } from "../migrate/diff.js";
import { migrate } from "../migrate/executor.js";
import { MigrationFailed, brief } from "../migrate/types.js";
import { realIo } from "../migrate/io.js";
import { lockTiming } from "../migrate/lease-duration.js";
import { targetFromOptions } from "../calico/shared/kubespray.js";
import { inPlaceWindowWarning } from "../calico/shared/tunnel-pool.js";
import { bgpGoneNote, mtuWarning, summarize, summarizeTarget } from "../migrate/target.js";
import type { ModuleContext, ModuleDefinition, ModuleResult } from "../protocol/module.js";

export type { CalicoEncapMigrateParams };

export async function runMigrate(
  runner: CommandRunner,
  ctx: ModuleContext<CalicoEncapMigrateParams>,
): Promise<ModuleResult> {
  const p = ctx.params;
  const observeOptions = observeOptionsFrom(p);
  const io = realIo(
    runner,
    observeOptions,
    { ...observeOptions, vxlanVni: p.vxlan_vni, vxlanPort: p.vxlan_port },
    lockTiming(p),
    (v, m) => ctx.log(v, m),
  );
  const target = targetFromOptions(p);
  const names = target.pools.map((x) => x.name);
  // A CIDR that is none was refused before the first read, with the options (their schema's format).
  const start = await io.observe();
  if (!start.live.calicoInstalled)
    return {
      failed: true,
      changed: false,
      msg: `Calico is not installed (${start.live.reason}): there is nothing to migrate.`,
    };
  const planned = plan(start, target);
  const from = summarize(start, names);
  if (!planned.ok)
    return {
      failed: true,
      changed: false,
      msg: `Refused before any write: ${planned.reason}`,
      plan: [],
      steps: [],
      migrated_from: from,
      migrated_to: from,
    };
  // Which step the run stops before is planUntil's to say, here for check mode and in the executor's loop alike.
  // pool_switch_on_bird_path (migrate.yml's default) stops only where pool_switch would not be refused.
  const onBirdPath =
    p.stop_before === STOP_BEFORE_ON_BIRD_PATH
      ? stopOnBirdPath(start.live, target, p.datastore)
      : null;
  let stop: StopBefore | null = onBirdPath
    ? onBirdPath.stop
    : p.stop_before === STOP_BEFORE_POOL_SWITCH
      ? STOP_BEFORE_POOL_SWITCH
      : null;
  const noFallback = onBirdPath?.warning ? [onBirdPath.warning] : [];
  const stopRefused =
    stop && !onBirdPath ? stopBeforeRefusal(start.live, target, p.datastore) : null;
  if (stopRefused)
    return {
      failed: true,
      changed: false,
      msg: `Refused before any write: ${stopRefused}`,
      plan: [],
      steps: [],
      migrated_from: from,
      migrated_to: from,
      cluster_routes: planned.routes.why,
    };
  const writes = planned.steps.flatMap((s) => (s.write ? [s.write] : []));
  const routes = { cluster_routes: planned.routes.why };
  // Before the first write (the Lease's): whether this identity may make every write of the plan. A denied one
  // refuses the run; one the API server could not be asked about is a warning. Under pool_switch_on_bird_path an
  // identity that may not list the block affinities migrates without the fallback, and is told why.
  const access = writes.length
    ? await io.deniedPermissions(writes, stop ? [BLOCK_AFFINITIES_READ] : [])
    : { denied: [], unknown: [] };
  if (onBirdPath && stop && access.denied.includes(BLOCK_AFFINITIES_READ)) {
    stop = null;
    access.denied = access.denied.filter((d) => d !== BLOCK_AFFINITIES_READ);
    noFallback.push(
      `The BIRD-path fallback (stop_before: ${STOP_BEFORE_ON_BIRD_PATH}) cannot cover this pool switch, which goes on without it, BIRD's path with its gap: the kubeconfig's identity (${p.kubeconfig}) may not ${describePermission(BLOCK_AFFINITIES_READ)} (kubectl auth can-i said no). Grant it (the collection's roles/calico_encap/files/rbac-migrate.yaml does) to migrate with the fallback.`,
    );
  }
  const until = planUntil(planned.steps, stop);
  const planOut = until.steps.map((s) => ({ title: s.title, write: s.write }));
  /** fallback_routes from an observation and the block affinities then, or why not. */
  const fallback = async (
    obs: typeof start,
  ): Promise<
    | { fallback_routes: FallbackRoute[]; fallback_nodes: string[]; fallback_cidrs: string[] }
    | { reason: string }
  > => {
    try {
      const r = fallbackRoutes(obs, await io.blockAffinities(), target);
      return r.ok
        ? { fallback_routes: r.routes, fallback_nodes: r.nodes, fallback_cidrs: r.cidrs }
        : { reason: r.reason };
    } catch (e) {
      return { reason: `reading the IPAM block affinities failed: ${brief(e, 1000)}` };
    }
  };
  const stopped = (title: string) => ({ stopped_before: title });
  /** With stop_before and no pool switch left: the run goes to the end and there is no fallback to install. */
  const nothingToStopBefore = stop
    ? { fallback_routes: [], fallback_nodes: [], fallback_cidrs: [] }
    : {};
  const diff = ctx.diff && writes.length ? { diff: migrationDiff(start, writes) } : {};
  const mtu = mtuWarning(from, summarizeTarget(target));
  const inPlace = inPlaceWindowWarning(start.live.pools, target, start.nodes);
  const skipped = skippedNodeWarnings(start);
  const warn = (changed: boolean, more: string[] = []): { warnings?: string[] } => {
    const all = [
      ...(changed && inPlace ? [inPlace] : []),
      ...(changed ? noFallback : []),
      ...(changed && mtu ? [mtu] : []),
      ...skipped,
      ...more,
    ];
    return all.length ? { warnings: all } : {};
  };
  const accessWarnings = access.unknown.length
    ? [
        `Could not ask the API server whether this kubeconfig's identity may make the run's writes (kubectl auth can-i): ${access.unknown.join("; ")}.`,
      ]
    : [];
  /** A refusal once the plan is known, before any write. */
  const refusedBeforeWrite = (why: string) => ({
    failed: true,
    changed: false,
    msg: `Refused before any write: ${why}`,
    plan: planOut,
    steps: [],
    migrated_from: from,
    migrated_to: from,
    ...routes,
    ...warn(false, accessWarnings),
  });
  if (access.denied.length && !ctx.checkMode)
    return refusedBeforeWrite(
      `the kubeconfig's identity (${p.kubeconfig}) may not ${access.denied.map(describePermission).join(", ")}, which this run needs (kubectl auth can-i said no). Grant them, e.g. with the collection's roles/calico_encap/files/rbac-migrate.yaml, or run with a kubeconfig that has them.`,
    );
  if (access.denied.length)
    accessWarnings.push(
      `This kubeconfig's identity may not ${access.denied.map(describePermission).join(", ")}: the run would refuse before any write.`,
    );
  // Out of VXLAN the fallback's routes are known now: a Node they cannot be made for is refused before any write
  // (issue 52 item 6), not at the stop after the backend's switch and calico-node's roll.
  const early =
    until.stoppedBefore && routesKnownAtStart(start.live, target) ? await fallback(start) : null;
  if (early && "reason" in early)
    return refusedBeforeWrite(`the fallback routes could not be made: ${early.reason}`);
  if (ctx.checkMode && until.stoppedBefore) {
    // The fallback's routes are known once every node has its VTEP; into VXLAN, before the tunnel pool's step they
    // are not.
    const ready = early ?? (until.steps.some((s) => s.write) ? null : await fallback(start));
    const routesNow = ready && "fallback_routes" in ready ? ready : null;
    // Changed as the run would change the cluster: by the writes before the stop, not the whole plan's.
    const before = until.steps.flatMap((s) => (s.write ? [s.write] : []));
    return {
      changed: before.length > 0,
      msg: `Would run ${before.length} step(s) and stop before '${until.stoppedBefore.title}' (stop_before: ${p.stop_before})${until.steps.length ? `: ${until.steps.map((s) => s.title).join("; ")}` : ""}.${routesNow ? " fallback_routes: the routes the nodes' fallback tables would hold, each on every node but its peer." : ` fallback_routes are known once every node has its VTEP, at the stop${ready && "reason" in ready ? ` (now: ${ready.reason})` : ""}.`}`,
      plan: planOut,
      steps: [],
      migrated_from: from,
      migrated_to: summarize(start, names),
      ...routes,
      ...stopped(until.stoppedBefore.title),
      ...(routesNow ?? {}),
      ...(ctx.diff && before.length ? { diff: migrationDiff(start, before) } : {}),
      ...warn(false, accessWarnings),
    };
  }
  if (ctx.checkMode)
    return {
      changed: writes.length > 0,
      msg: writes.length
        ? `Would run ${writes.length} step(s): ${planned.steps.map((s) => s.title).join("; ")}.`
        : "The cluster already matches the target.",
      plan: planOut,
      steps: [],
      migrated_from: from,
      migrated_to: summarizeTarget(target),
      ...routes,
      ...nothingToStopBefore,
      ...diff,
      ...warn(writes.length > 0, accessWarnings),
    };
  if (writes.length === 0 && unsettled(start).length === 0)
    return {
      changed: false,
      msg: "The cluster already matches the target.",
      plan: planOut,
      steps: [],
      migrated_from: from,
      migrated_to: from,
      ...routes,
      ...nothingToStopBefore,
      ...warn(false),
    };
  try {
    const run = await migrate(
      io,
      target,
      { waitTimeoutSeconds: p.wait_timeout, waitSleepSeconds: p.wait_sleep },
      stop,
    );
    const to = summarize(run.final, names);
    const migratedFrom = summarize(run.initial, names);
    if (run.stoppedBefore) {
      const title = run.stoppedBefore.title;
      const done = run.steps.length
        ? ` after ${run.steps.length} step(s): ${run.steps.map((s) => `${s.title} (${s.seconds.toFixed(1)} s)`).join("; ")}`
        : " before any write";
      const fb = await fallback(run.final);
      const base = {
        changed: run.changed,
        plan: planOut,
        steps: run.steps,
        migrated_from: migratedFrom,
        migrated_to: to,
        ...routes,
        ...stopped(title),
        ...warn(false, [...accessWarnings, ...run.warnings]),
      };
      if ("reason" in fb)
        return {
          ...base,
          failed: true,
          msg: `Stopped before step '${title}' (stop_before: ${p.stop_before})${done}, but the fallback routes could not be made: ${fb.reason} The pool has not switched; running again ${WITHOUT_STOP_BEFORE} switches it without the fallback.`,
        };
      return {
        ...base,
        msg: `Stopped before step '${title}' (stop_before: ${p.stop_before})${done}; every node has its VTEP. Install fallback_routes on every node (the role's calico_encap_bird_path_fallback), then run again without stop_before to finish.`,
        ...fb,
      };
    }
    return {
      changed: run.changed,
      msg: run.changed
        ? `Migrated in ${run.steps.length} step(s): ${run.steps.map((s) => `${s.title} (${s.seconds.toFixed(1)} s)`).join("; ")}.${bgpGoneNote(migratedFrom, to) ?? ""}`
        : "The cluster already matches the target.",
      plan: planOut,
      steps: run.steps,
      migrated_from: migratedFrom,
      migrated_to: to,
      ...routes,
      ...nothingToStopBefore,
      ...(run.changed ? diff : {}),
      ...warn(run.changed, [...accessWarnings, ...run.warnings]),
    };
  } catch (e) {
    // Never read the cluster again here: a second failure would hide the first.
    if (e instanceof MigrationFailed)
      return {
        failed: true,
        changed: e.steps.length > 0,
        msg: e.message,
        rolled_back: e.rolledBack,
        plan: planOut,
        steps: e.steps,
        migrated_from: from,
        migrated_to: summarize(e.last ?? start, names),
        ...routes,
        ...warn(e.steps.length > 0, [...accessWarnings, ...e.warnings]),
      };
    return {
      failed: true,
      changed: false,
      msg: e instanceof LockRefused ? e.message : `Nothing was written: ${brief(e, 2000)}`,
      plan: planOut,
      steps: [],
      migrated_from: from,
      migrated_to: from,
      ...routes,
      ...warn(false, accessWarnings),
    };
  }
}

export function calicoEncapMigrate(
  runner: CommandRunner,
): ModuleDefinition<CalicoEncapMigrateParams> {
  return {
    name: "calico_encap_migrate",
    optionsSchema,
    validate,
    supportsCheckMode: true,
    run: (ctx) => runMigrate(runner, ctx),
  };
}
