// calico_pool_check: args -> observe -> decide. Never writes; check mode runs the same read-only comparison.

import optionsSchema from "../../schemas/calico_pool_check.options.json" with { type: "json" };
import type { CheckOutcome } from "../calico/check/check.js";
import { checkPools } from "../calico/check/check.js";
import type { CalicoPoolCheckParams } from "../generated/calico_pool_check.options.js";
import { validate } from "../generated/calico_pool_check.options.validator.js";
import { observe, observeOptionsFrom } from "../cluster/observe.js";
import type { CommandRunner } from "../cluster/runner.js";
import { mark } from "../timings.js";
import type { ModuleContext, ModuleDefinition } from "../protocol/module.js";

export type { CalicoPoolCheckParams };

export async function runCheck(
  runner: CommandRunner,
  p: CalicoPoolCheckParams,
  log: (verbosity: number, msg: string) => void = () => undefined,
): Promise<CheckOutcome> {
  mark("validated");
  const live = await observe(runner, observeOptionsFrom(p));
  log(
    2,
    `observed the cluster: ${live.reason}, ${live.pools.length} pool(s), backend ${String(live.configMapBackend)}`,
  );
  mark("observed");
  const outcome = checkPools(p, live);
  mark("decided");
  return outcome;
}

export function calicoPoolCheck(runner: CommandRunner): ModuleDefinition<CalicoPoolCheckParams> {
  return {
    name: "calico_pool_check",
    optionsSchema,
    validate,
    supportsCheckMode: true,
    async run(ctx: ModuleContext<CalicoPoolCheckParams>) {
      const outcome = await runCheck(runner, ctx.params, (v, m) => ctx.log(v, m));
      return { ...outcome };
    },
  };
}
