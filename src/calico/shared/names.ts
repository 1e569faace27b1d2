// Lists of node names in messages that are printed on every poll: at a thousand nodes a whole list is tens of KB a
// line (measured on the lab's 1000 kwok nodes, issue 40), so a message names the first few and counts the rest.

/** How many names a progress message prints before it counts the rest. */
export const NAMES_SHOWN = 10;

/** "node-1, node-2" or, past `max`, "sim-0001, ..., sim-0010 and 990 more (1000 in all)". */
export function someNames(names: readonly string[], max: number = NAMES_SHOWN): string {
  if (names.length <= max) return names.join(", ");
  return `${names.slice(0, max).join(", ")} and ${names.length - max} more (${names.length} in all)`;
}
