// The command line of `calico-encap check|migrate`, parsed into option values (as typed, for the
// module's own validator to convert and check) and the front's settings. Pure.

import type { FrontFlag, HumanMode, OptionFlag } from "./flags.js";
import { FRONT_FLAGS, MODULE_OF } from "./flags.js";

/** A value given for an option, and where: the flag as typed. */
export interface Given {
  value: unknown;
  source: string;
}

export interface HumanArgs {
  mode: HumanMode;
  /** Option values from flags, by option name. */
  options: Record<string, Given>;
  varsFiles: string[];
  check: boolean;
  diff: boolean;
  verbosity: number;
  json: boolean;
  help: boolean;
}

export type ParseOutcome = { ok: true; args: HumanArgs } | { ok: false; error: string };

function takesFront(mode: HumanMode, name: string): FrontFlag | undefined {
  return FRONT_FLAGS.find((f) => f.flag.split(", ").includes(name) && f.modes.includes(mode));
}

function looksLikeFlag(word: string): boolean {
  return word.startsWith("-") && !/^-\d/.test(word);
}

/** Where a flag not taken by this command is taken, to say so in the error. */
function elsewhere(mode: HumanMode, name: string): string {
  const other = (Object.keys(MODULE_OF) as HumanMode[]).find(
    (m) => m !== mode && takesFront(m, name),
  );
  return other ? ` (${name} is a flag of calico-encap ${other})` : "";
}

export function parseHumanArgs(
  mode: HumanMode,
  argv: readonly string[],
  flags: readonly OptionFlag[],
): ParseOutcome {
  const args: HumanArgs = {
    mode,
    options: {},
    varsFiles: [],
    check: false,
    diff: false,
    verbosity: 0,
    json: false,
    help: false,
  };
  const byName = new Map<string, OptionFlag>();
  for (const f of flags) for (const n of [f.flag, ...f.aliases]) byName.set(n, f);
  const fail = (error: string): ParseOutcome => ({ ok: false, error });

  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] ?? "";
    const eq = word.startsWith("--") ? word.indexOf("=") : -1;
    const name = eq > 0 ? word.slice(0, eq) : word;
    const inline = eq > 0 ? word.slice(eq + 1) : undefined;
    const value = (): string | undefined => {
      if (inline !== undefined) return inline;
      const next = argv[i + 1];
      if (next === undefined || looksLikeFlag(next)) return undefined;
      i++;
      return next;
    };

    const verbose = /^-(v+)$/.exec(name);
    if (verbose?.[1] && inline === undefined) {
      args.verbosity += verbose[1].length;
      continue;
    }
    if (name === "--verbose" && inline === undefined) {
      args.verbosity += 1;
      continue;
    }
    const front = takesFront(mode, name);
    if (front) {
      if (front.metavar === null) {
        if (inline !== undefined) return fail(`${name} takes no value, got: ${name}=${inline}`);
        if (name === "--check") args.check = true;
        else if (name === "--diff") args.diff = true;
        else if (name === "--json") args.json = true;
        else args.help = true;
        continue;
      }
      const v = value();
      if (v === undefined) return fail(`${name} needs a value (${front.metavar})`);
      args.varsFiles.push(v);
      continue;
    }
    const option = byName.get(name);
    if (option) {
      if (option.type === "bool" && inline === undefined) {
        args.options[option.option] = { value: true, source: name };
        continue;
      }
      const v = value();
      if (v === undefined) return fail(`${name} needs a value (${option.metavar})`);
      const earlier = args.options[option.option];
      // A list option given twice collects both, the way Ansible reads "a,b".
      const joined =
        option.type === "list" && earlier !== undefined ? `${String(earlier.value)},${v}` : v;
      args.options[option.option] = { value: joined, source: name };
      continue;
    }
    const negated = name.startsWith("--no-") ? byName.get(`--${name.slice(5)}`) : undefined;
    if (negated?.type === "bool") {
      if (inline !== undefined) return fail(`${name} takes no value, got: ${name}=${inline}`);
      args.options[negated.option] = { value: false, source: name };
      continue;
    }
    if (looksLikeFlag(word)) return fail(`unknown flag ${name}${elsewhere(mode, name)}`);
    return fail(`unexpected argument '${word}' (every value follows its flag)`);
  }
  return { ok: true, args };
}
