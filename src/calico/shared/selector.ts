// Calico's pool nodeSelector, for the forms Kubespray and Calico's defaults use: all(), has(k), !has(k),
// k == 'v', k != 'v', joined with &&. Anything else is reported as unsupported rather than guessed. Pure.

export type SelectorResult =
  | { ok: true; matches: (labels: Record<string, string>) => boolean }
  | { ok: false; reason: string };

type Term = (labels: Record<string, string>) => boolean;

function term(text: string): Term | null {
  const t = text.trim();
  if (t === "all()" || t === "") return () => true;
  let m = /^(!)?has\(\s*([\w./-]+)\s*\)$/.exec(t);
  if (m) {
    const [, not, key] = m;
    return (labels) => key! in labels !== (not === "!");
  }
  m = /^([\w./-]+)\s*(==|!=)\s*(['"])(.*)\3$/.exec(t);
  if (m) {
    const [, key, op, , value] = m;
    return (labels) => (labels[key!] === value) === (op === "==");
  }
  return null;
}

export function parseSelector(selector: string): SelectorResult {
  const terms = selector.split("&&").map(term);
  if (terms.some((t) => t === null))
    return { ok: false, reason: `unsupported nodeSelector: ${selector}` };
  const all = terms as Term[];
  return { ok: true, matches: (labels) => all.every((t) => t(labels)) };
}
