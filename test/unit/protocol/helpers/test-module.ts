/** A small module used by the protocol tests: options of every type, aliases, no_log, required. */
import type { JsonSchemaObject } from "../../../../src/protocol/json-schema.js";
import type {
  ModuleContext,
  ModuleDefinition,
  ModuleResult,
} from "../../../../src/protocol/module.js";

export const testSchema: JsonSchemaObject = {
  $schema: "http://json-schema.org/draft-07/schema#",
  $id: "test_module.options.json",
  type: "object",
  additionalProperties: false,
  required: ["name", "size"],
  "x-ansible": { module: "test_module", short_description: "A test module" },
  properties: {
    name: {
      type: "string",
      description: "Name.",
      pattern: "^[a-z][a-z0-9-]*$",
      "x-ansible-aliases": ["nm", "id"],
    },
    size: { type: "integer", minimum: 1, maximum: 10 },
    state: {
      type: "string",
      enum: ["present", "absent"],
      default: "present",
      "x-ansible-aliases": ["st"],
    },
    enabled: { type: "boolean", default: false },
    tags: { type: "array", items: { type: "string" } },
    labels: { type: "object" },
    password: { type: "string", "x-ansible-no-log": true },
    comment: { type: "string" },
    port: { type: "integer", default: 8080, "x-kubespray-variable": "test_port" },
  },
};

export type TestParams = {
  name: string;
  size: number;
  state: "present" | "absent";
  enabled: boolean;
  tags: string[] | null;
  labels: Record<string, unknown> | null;
  password: string | null;
  comment: string | null;
  port: number;
};

/** A definition whose run() is the given function (default: echo the params in `params`). */
export function testModule(
  run: (ctx: ModuleContext<TestParams>) => Promise<ModuleResult> = (ctx) =>
    Promise.resolve({ params: ctx.params, check_mode: ctx.checkMode }),
  supportsCheckMode = true,
): ModuleDefinition<TestParams> {
  return { name: "test_module", optionsSchema: testSchema, supportsCheckMode, run };
}

/** Valid options plus the given ones. */
export function args(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: "web", size: 3, ...extra };
}
