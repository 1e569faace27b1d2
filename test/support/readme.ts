// README's quoted outputs: the fenced block after `<!-- output:NAME -->`, up to `<!-- output:end -->`. A test that
// makes the same output compares it with README's copy, so README quotes what the tool says.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "./ansible.js";

/** The text of README's quoted output NAME, without its fence. Throws when README has none of that name. */
export function readmeOutput(
  name: string,
  readme = readFileSync(join(REPO, "README.md"), "utf8"),
): string {
  const m = new RegExp(
    `<!-- output:${name} -->\\n\`\`\`\\n([\\s\\S]*?)\\n\`\`\`\\n<!-- output:end -->`,
  ).exec(readme);
  if (!m?.[1])
    throw new Error(
      `README.md has no quoted output '${name}' (<!-- output:${name} --> ... <!-- output:end -->)`,
    );
  return m[1];
}

/** Text with every run of whitespace made one space: README wraps a message's long lines, the tool does not. */
export function unwrapped(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
