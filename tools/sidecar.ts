/** The sidecar ansible/library/M.yml (pure): DOCUMENTATION, EXAMPLES and RETURN as YAML. */
import { Document } from "yaml";
import type { ModuleSchemas } from "./module-schemas.js";
import { documentation, examples, returns } from "./ansible-doc.js";
import { GENERATED_MARKER } from "./paths.js";

export function sidecarYaml(mod: ModuleSchemas): string {
  const doc = new Document({
    DOCUMENTATION: documentation(mod.name, mod.options),
    EXAMPLES: examples(mod.options),
    RETURN: returns(mod.result),
  });
  doc.commentBefore = [
    ` ${GENERATED_MARKER}${mod.name}.options.json and ${mod.name}.result.json`,
    " by tools/generate.ts: do not edit. Regenerate with `npm run build && npm run generate`.",
    ` Documentation of the ${mod.name} module for ansible-doc (a sidecar: the module is not Python).`,
  ].join("\n");
  return doc.toString({ lineWidth: 100, minContentWidth: 40, blockQuote: "literal" });
}
