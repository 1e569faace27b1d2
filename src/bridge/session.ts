// One bridge conversation, independent of streams: lines in (receive, end), lines out (write).
// The first message must be run; then exec_results answer the execs the module sends; the
// conversation ends with exactly one result op, also for every protocol error.

import type { ModuleFactory } from "../modules/index.js";
import { loadModule, MODULE_NAMES } from "../modules/index.js";
import { buildMismatch } from "../build-id.js";
import { executeModule } from "../protocol/module.js";
import { failure } from "../protocol/result.js";
import type { BackendMessage, RunMessage } from "./protocol.js";
import { encodeMessage, parsePluginLine, PROTOCOL_ADVICE, resultMessage } from "./protocol.js";
import { BridgeRunner } from "./runner.js";

type Phase = "waiting for run" | "running" | "done";

export class BridgeSession {
  private phase: Phase = "waiting for run";
  private readonly runner: BridgeRunner;
  private finished!: () => void;
  /** Settles once the result op is written (or the plugin is gone). */
  readonly done: Promise<void>;

  constructor(
    private readonly write: (line: string) => void,
    private readonly load: (name: string) => Promise<ModuleFactory | undefined> = loadModule,
  ) {
    this.runner = new BridgeRunner((m) => this.send(m));
    this.done = new Promise((resolve) => {
      this.finished = resolve;
    });
  }

  /** Every argv the module sent as an exec op. */
  get commands(): readonly string[][] {
    return this.runner.history;
  }

  /** One line from the plugin, without its newline. */
  receive(line: string): void {
    if (this.phase === "done" || line === "") return;
    const parsed = parsePluginLine(line);
    if (!parsed.ok) return this.fail(parsed.error);
    const m = parsed.message;
    if (m.op === "run") {
      if (this.phase !== "waiting for run")
        return this.fail(
          `the action plugin sent a second run op (module ${m.module}). ${PROTOCOL_ADVICE}`,
        );
      this.phase = "running";
      void this.start(m);
      return;
    }
    if (this.phase === "waiting for run")
      return this.fail(
        `the action plugin sent exec_result ${m.id} before the run op. ${PROTOCOL_ADVICE}`,
      );
    if (!this.runner.deliver(m)) {
      const pending = this.runner.pendingIds;
      return this.fail(
        `the action plugin sent exec_result ${m.id}, but ${pending.length ? `only ${pending.join(", ")} ${pending.length === 1 ? "is" : "are"}` : "no command is"} pending. ${PROTOCOL_ADVICE}`,
      );
    }
  }

  /** The plugin closed its side (stdin reached its end). */
  end(): void {
    if (this.phase === "waiting for run")
      return this.fail("the action plugin closed the bridge before sending the run op");
    // The module fails on its pending and next commands, and its result ends the session.
    this.runner.close("the action plugin closed the bridge while the module was running");
  }

  /** The plugin is gone (its pipe broke): stop without writing anything more. */
  abandon(reason: string): void {
    if (this.phase === "done") return;
    this.phase = "done";
    this.runner.close(reason);
    this.finished();
  }

  private async start(m: RunMessage): Promise<void> {
    const mismatch = buildMismatch(m.build);
    if (mismatch) return this.fail(mismatch);
    let factory: ModuleFactory | undefined;
    try {
      factory = await this.load(m.module);
    } catch (error) {
      return this.fail(`module ${m.module} could not be loaded: ${String(error)}`);
    }
    if (factory === undefined)
      return this.fail(
        `the action plugin asked for module ${JSON.stringify(m.module)}; the bridge runs ${MODULE_NAMES.join(" and ")}. ${PROTOCOL_ADVICE}`,
      );
    const result = await executeModule(factory(this.runner), m.args, (msg, level) =>
      this.send({ op: "log", level, msg }),
    );
    this.finish(result);
  }

  private fail(msg: string): void {
    this.finish(failure(`calico-encap bridge: ${msg}`));
  }

  private finish(result: Record<string, unknown>): void {
    if (this.phase === "done") return;
    this.send(resultMessage(result));
    this.phase = "done";
    this.runner.close("the bridge has already sent its result");
    this.finished();
  }

  private send(message: BackendMessage): void {
    if (this.phase !== "done") this.write(encodeMessage(message));
  }
}
