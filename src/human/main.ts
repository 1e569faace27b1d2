// The human front: `calico-encap check|migrate [flags]` for people outside Ansible. Flags and --vars
// become the module's options, the module runs through executeModule exactly as under Ansible, and
// its result is printed for a person (or as it is, with --json). Exit 0 done or nothing to change,
// 1 blocked or failed, 2 usage error.

import type { CommandRunner } from "../cluster/runner.js";
import { LocalRunner } from "../cluster/runner.js";
import { loadModule } from "../modules/index.js";
import { exitCodeOf, resultLine, stderrLogger } from "../protocol/emit.js";
import type { ModuleDefinition } from "../protocol/module.js";
import { executeModule } from "../protocol/module.js";
import type { HumanMode } from "./flags.js";
import { MODULE_OF, optionFlags } from "./flags.js";
import { helpText } from "./help.js";
import { resolveOptions } from "./options.js";
import type { HumanArgs } from "./parse.js";
import { parseHumanArgs } from "./parse.js";
import { Progress } from "./progress.js";
import { renderCheck } from "./render-check.js";
import { renderMigrate, renderPlan } from "./render-migrate.js";
import { migrateCommand } from "./suggest.js";
import type { Style } from "./style.js";
import { styleFor } from "./style.js";
import { optionsFromVars, readVarsFiles } from "./vars.js";

export interface HumanIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  env: Record<string, string | undefined>;
  runner: CommandRunner;
  /** Called with a cleanup to run when the person presses Ctrl-C during a migration. */
  onInterrupt(cleanup: () => void): () => void;
}

function processIo(): HumanIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    runner: new LocalRunner(),
    onInterrupt(cleanup) {
      const handler = () => {
        cleanup();
        process.exit(130);
      };
      process.once("SIGINT", handler);
      return () => process.off("SIGINT", handler);
    },
  };
}

type Run = (
  extra: Record<string, unknown>,
  log?: (msg: string) => void,
) => Promise<Record<string, unknown>>;

async function humanCheck(run: Run, a: HumanArgs, io: HumanIo, style: Style, given: Options) {
  const log = a.verbosity > 0 ? new Progress(io.stderr, false) : undefined;
  const result = await run({}, log && ((m) => log.update(m)));
  const hint = result.migration as { possible?: boolean; args?: Record<string, unknown> };
  const suggestion = hint?.possible === true && hint.args ? migrateCommand(hint.args, given) : null;
  io.stdout.write(renderCheck(result, style, suggestion));
  return exitCodeOf(result);
}

async function humanMigrate(run: Run, a: HumanArgs, io: HumanIo, style: Style) {
  const lines = new Progress(io.stderr, false);
  const verbose = a.verbosity > 0 ? (m: string) => lines.update(m) : undefined;
  if (a.check) {
    const result = await run({ _ansible_check_mode: true }, verbose);
    io.stdout.write(renderMigrate(result, style, true));
    return exitCodeOf(result);
  }
  const planned = await run({ _ansible_check_mode: true, _ansible_diff: false }, verbose);
  if (planned.failed === true || planned.changed === true)
    io.stdout.write(renderPlan(planned, style));
  if (planned.failed === true) return exitCodeOf(planned);

  const inPlace = io.stderr.isTTY === true && a.verbosity === 0;
  const columns = io.stderr.columns || Number(io.env.COLUMNS) || 80;
  const progress = new Progress({ write: (t) => io.stderr.write(t), columns }, inPlace);
  const stopListening = io.onInterrupt(() => {
    progress.done();
    io.stderr.write(
      "\ninterrupted: the cluster is the only state, so running the same calico-encap migrate again resumes where this one stopped (once the Lease kube-system/calico-encap-migrate expires).\n",
    );
  });
  try {
    // Verbosity 1 at least: the module's progress lines arrive at verbosity 1.
    const result = await run({ _ansible_verbosity: Math.max(1, a.verbosity) }, (m) =>
      progress.update(m),
    );
    progress.done();
    io.stdout.write(renderMigrate(result, style, false));
    return exitCodeOf(result);
  } finally {
    progress.done();
    stopListening();
  }
}

type Options = Record<string, unknown>;

function usage(io: HumanIo, mode: HumanMode, error: string): number {
  io.stderr.write(`calico-encap ${mode}: ${error}\nTry 'calico-encap ${mode} --help'.\n`);
  return 2;
}

export async function runHuman(
  mode: HumanMode,
  argv: string[],
  io: HumanIo = processIo(),
): Promise<number> {
  const factory = await loadModule(MODULE_OF[mode]);
  if (!factory) throw new Error(`no module ${MODULE_OF[mode]}`);
  const def: ModuleDefinition<unknown> = factory(io.runner);
  const flags = optionFlags(def.optionsSchema);
  const parsed = parseHumanArgs(mode, argv, flags);
  if (!parsed.ok) return usage(io, mode, parsed.error);
  const a = parsed.args;
  if (a.help) {
    io.stdout.write(helpText(mode, def.optionsSchema, flags));
    return 0;
  }
  const files = await readVarsFiles(a.varsFiles);
  if (!files.ok) return usage(io, mode, files.error);
  const resolved = resolveOptions(def, optionsFromVars(flags, files.value), a.options);
  if (!resolved.ok) return usage(io, mode, resolved.error);

  const base = {
    ...resolved.options,
    _ansible_check_mode: a.check,
    _ansible_diff: a.diff,
    _ansible_verbosity: a.verbosity,
  };
  const run: Run = (extra, log) => executeModule(def, { ...base, ...extra }, log);
  if (a.json) {
    const result = await run({}, a.verbosity > 0 ? stderrLogger(io.stderr) : undefined);
    io.stdout.write(resultLine(result));
    return exitCodeOf(result);
  }
  const style = styleFor(io.stdout.isTTY, io.env);
  return mode === "check"
    ? humanCheck(run, a, io, style, resolved.converted)
    : humanMigrate(run, a, io, style);
}
