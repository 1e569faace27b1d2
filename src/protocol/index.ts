/** The module protocol: what src/modules and src/cli.ts use. */
export type { ModuleContext, ModuleDefinition, ModuleResult } from "./module.js";
export { executeModule } from "./module.js";
export type { AnsibleDocBlock, JsonSchema, JsonSchemaObject } from "./json-schema.js";
export { readArgsFile, parseArgsText } from "./args-file.js";
export type { ArgsFileOutcome } from "./args-file.js";
export { emitResult, formatLogLines, stderrLogger } from "./emit.js";
export type { TextSink } from "./emit.js";
export { runModuleMode } from "./run.js";
export type { ModuleModeIo } from "./run.js";
export { validateOptions } from "./validate.js";
export type { OptionsValidator } from "./options-validator.js";
export { NO_LOG_MASK, NO_LOG_PLACEHOLDER } from "./no-log.js";
