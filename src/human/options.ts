// The module's options from --vars files and flags (flags win), checked by the module's own
// validator before anything runs, so a bad value is a usage error in Ansible's wording that names
// the flag or variable it came from. Pure.

import type { ModuleDefinition } from "../protocol/module.js";
import type { ValidationSettings } from "../protocol/validate.js";
import { validateOptions } from "../protocol/validate.js";
import type { Given } from "./parse.js";
import type { FromVars } from "./vars.js";

export type Resolved =
  | {
      ok: true;
      /** The values as given (the module converts them itself, with its warnings). */
      options: Record<string, unknown>;
      /** The same options converted to their types ("26" -> 26, "yes" -> true). */
      converted: Record<string, unknown>;
    }
  | { ok: false; error: string };

export function resolveOptions(
  def: ModuleDefinition<unknown>,
  fromVars: FromVars,
  fromFlags: Record<string, Given>,
): Resolved {
  const pending = Object.keys(fromVars.unresolved).find((o) => !(o in fromFlags));
  if (pending !== undefined) return { ok: false, error: fromVars.unresolved[pending] ?? pending };
  const given: Record<string, Given> = { ...fromVars.options, ...fromFlags };
  const options = Object.fromEntries(Object.entries(given).map(([k, g]) => [k, g.value]));
  const settings: ValidationSettings = {
    moduleName: def.name,
    ignoreUnknownOpts: false,
    stringConversionAction: "warn",
  };
  const validate = (o: Record<string, unknown>) =>
    validateOptions(def.optionsSchema, o, settings, def.validate);
  const check = (o: Record<string, unknown>) => validate(o).error;
  const all = validate(options);
  const error = all.error;
  if (error === null) {
    const converted = Object.fromEntries(Object.keys(options).map((k) => [k, all.params[k]]));
    return { ok: true, options, converted };
  }
  // The option the error is about: the first one that fails the same way on its own.
  const culprit = Object.entries(given).find(([k, g]) => check({ [k]: g.value }) === error);
  return { ok: false, error: culprit ? `${culprit[1].source}: ${error}` : error };
}
