// Colour for a person's terminal: only on a TTY, never with NO_COLOR (https://no-color.org) or
// TERM=dumb. Pure.

export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
}

export function wantsColour(isTTY: boolean | undefined, env: Record<string, string | undefined>) {
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== "";
  return isTTY === true && !noColor && env.TERM !== "dumb";
}

const sgr =
  (on: number, off: number) =>
  (s: string): string =>
    `\x1b[${on}m${s}\x1b[${off}m`;

export const COLOUR: Style = {
  bold: sgr(1, 22),
  dim: sgr(2, 22),
  red: sgr(31, 39),
  green: sgr(32, 39),
  yellow: sgr(33, 39),
};

const same = (s: string): string => s;
export const PLAIN: Style = { bold: same, dim: same, red: same, green: same, yellow: same };

export function styleFor(isTTY: boolean | undefined, env: Record<string, string | undefined>) {
  return wantsColour(isTTY, env) ? COLOUR : PLAIN;
}
