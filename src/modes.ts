// The backend's modes: its first argument. src/cli.ts dispatches on them, and each keeps a code cache of its own
// (src/bundle/code-cache.ts), since each runs other code.

export const MODES = ["check", "migrate", "module", "bridge"] as const;
export type Mode = (typeof MODES)[number];

/** The mode an argument names, or undefined. */
export function modeOf(arg: string | undefined): Mode | undefined {
  return MODES.find((m) => m === arg);
}
