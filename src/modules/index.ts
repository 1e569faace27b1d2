// The modules by name. Each loads only when asked for, so one module's process does not pay for the
// other's code. Module mode, the bridge and the human front all find modules here.

import type { CommandRunner } from "../cluster/runner.js";
import type { ModuleDefinition } from "../protocol/module.js";

export type ModuleFactory = (runner: CommandRunner) => ModuleDefinition<unknown>;

const LOADERS: Record<string, () => Promise<ModuleFactory>> = {
  calico_pool_check: async () => (await import("./calico_pool_check.js")).calicoPoolCheck,
  calico_encap_migrate: async () => (await import("./calico_encap_migrate.js")).calicoEncapMigrate,
};

export const MODULE_NAMES = Object.keys(LOADERS);

/** The module's factory, or undefined for a name that is not one of ours. */
export async function loadModule(name: string): Promise<ModuleFactory | undefined> {
  const load = Object.hasOwn(LOADERS, name) ? LOADERS[name] : undefined;
  return load ? load() : undefined;
}
