/**
 * A tiny module-mode program for the protocol tests, run as
 * `node echo-module-main.js <args-file>`: it logs (stderr, and console.log) then echoes params.
 */
import { runModuleMode } from "../../../../src/protocol/run.js";
import { testModule } from "./test-module.js";

const def = testModule(async (ctx) => {
  console.log("{ this console.log line must not reach stdout }");
  ctx.log(0, "{ a log line that starts with a brace }");
  if (ctx.params.comment === "crash") throw new Error("boom");
  return Promise.resolve({ changed: true, params: ctx.params });
});

await runModuleMode(def, process.argv[2] ?? "");
