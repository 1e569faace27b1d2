/**
 * Module mode, as the CLI runs it under a WANT_JSON wrapper: read the args file, execute the
 * module, print one JSON object. Anything written with console.log meanwhile goes to stderr.
 */
import { readArgsFile } from "./args-file.js";
import type { TextSink } from "./emit.js";
import { emitResult, stderrLogger } from "./emit.js";
import type { ModuleDefinition } from "./module.js";
import { executeModule } from "./module.js";

export interface ModuleModeIo {
  stdout?: TextSink;
  stderr?: TextSink;
  setExitCode?: (code: number) => void;
}

type ConsoleMethod = "log" | "info" | "debug";

/** Send console.log/info/debug to the log function while fn runs, so stdout holds only JSON. */
export async function withConsoleOnStderr<T>(
  log: (msg: string) => void,
  fn: () => Promise<T>,
): Promise<T> {
  const methods: ConsoleMethod[] = ["log", "info", "debug"];
  const saved = methods.map((m) => [m, Object.getOwnPropertyDescriptor(console, m)] as const);
  for (const m of methods) {
    console[m] = (...args: unknown[]) => log(args.map(String).join(" "));
  }
  try {
    return await fn();
  } finally {
    for (const [m, descriptor] of saved) {
      if (descriptor !== undefined) Object.defineProperty(console, m, descriptor);
    }
  }
}

export async function runModuleMode<P>(
  def: ModuleDefinition<P>,
  argsPath: string,
  io: ModuleModeIo = {},
): Promise<void> {
  const log = stderrLogger(io.stderr);
  const result = await withConsoleOnStderr(log, async () => {
    const args = await readArgsFile(argsPath);
    if (!args.ok) return { ...args.result, invocation: { module_args: {} } };
    return executeModule(def, args.args, log);
  });
  emitResult(result, io.stdout, io.setExitCode);
}
