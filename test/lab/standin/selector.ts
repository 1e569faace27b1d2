// Calico IPPool nodeSelector, the subset the stand-in understands (reference/calico.md, IPPool: `nodeSelector`,
// default `all()`). Supported: empty or all(); has(k); !has(k); k == 'v'; k != 'v' (single or double quotes);
// terms joined by &&. Anything else (||, in {...}, parentheses, functions such as starts with) is reported as
// unsupported and selects no node, so a test using it fails loudly instead of passing by accident.

export type Term =
  | { op: "has"; key: string }
  | { op: "!has"; key: string }
  | { op: "=="; key: string; value: string }
  | { op: "!="; key: string; value: string };

export type Selector = { ok: true; terms: Term[] } | { ok: false; error: string };

const KEY = String.raw`[A-Za-z0-9_./-]+`;
const VALUE = String.raw`(?:'([^']*)'|"([^"]*)")`;
const HAS = new RegExp(String.raw`^(!?)\s*has\(\s*(${KEY})\s*\)$`);
const CMP = new RegExp(String.raw`^(${KEY})\s*(==|!=)\s*${VALUE}$`);

export function parseSelector(src: string | undefined): Selector {
  const s = (src ?? "").trim();
  if (s === "" || s === "all()") return { ok: true, terms: [] };
  const terms: Term[] = [];
  for (const raw of s.split("&&")) {
    const t = raw.trim();
    const h = HAS.exec(t);
    if (h?.[2]) {
      terms.push({ op: h[1] === "!" ? "!has" : "has", key: h[2] });
      continue;
    }
    const c = CMP.exec(t);
    if (c?.[1] && (c[2] === "==" || c[2] === "!=")) {
      terms.push({ op: c[2], key: c[1], value: c[3] ?? c[4] ?? "" });
      continue;
    }
    return { ok: false, error: `unsupported nodeSelector term '${t}' in '${s}'` };
  }
  return { ok: true, terms };
}

export function selects(sel: Selector, labels: Record<string, string>): boolean {
  if (!sel.ok) return false;
  return sel.terms.every((t) => {
    const v = Object.prototype.hasOwnProperty.call(labels, t.key) ? labels[t.key] : undefined;
    switch (t.op) {
      case "has":
        return v !== undefined;
      case "!has":
        return v === undefined;
      case "==":
        return v === t.value;
      case "!=":
        return v !== t.value;
    }
  });
}
