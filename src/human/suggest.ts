// The calico-encap migrate command a check suggests: the module's migration hint (the target from the
// inventory) plus the options the person gave that migrate also takes (kubeconfig, calicoctl, ...). Pure.

import migrateSchema from "../../schemas/calico_encap_migrate.options.json" with { type: "json" };
import { flagsFor, optionFlags } from "./flags.js";

const MIGRATE_FLAGS = optionFlags(migrateSchema);

export function migrateCommand(
  hintArgs: Record<string, unknown>,
  given: Record<string, unknown>,
): string {
  const values: Record<string, unknown> = { ...hintArgs };
  for (const [option, value] of Object.entries(given))
    if (!(option in values)) values[option] = value;
  return ["calico-encap migrate", ...flagsFor(values, MIGRATE_FLAGS)].join(" ");
}
