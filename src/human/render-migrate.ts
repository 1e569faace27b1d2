// calico-encap migrate's output: the plan before the run, then the steps done with their
// durations, the state reached, the diff and the warnings (the MTU note). Pure.

import type { CalicoEncapMigrateResult, State } from "../generated/calico_encap_migrate.result.js";
import type { Style } from "./style.js";

type MigrateResult = Partial<CalicoEncapMigrateResult> & Record<string, unknown>;

/** "default-pool ipipMode Always, vxlanMode Never; backend bird" */
export function describeState(s: State | undefined): string {
  if (s === undefined) return "(unknown)";
  const pools = s.pools.map((p) => `${p.name} ipipMode ${p.ipip_mode}, vxlanMode ${p.vxlan_mode}`);
  return `${pools.join("; ") || "no pool"}; backend ${s.backend}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function seconds(s: number | undefined): string {
  return s === undefined ? "" : `${s.toFixed(1)} s`;
}

function numbered(
  titles: readonly { title: string; seconds?: number; settled?: boolean }[],
): string[] {
  const timed = titles.some((t) => t.seconds !== undefined);
  return titles.map((t, i) => {
    const time = timed ? `${seconds(t.seconds).padStart(7)}  ` : "";
    const unsettled = t.settled === false ? " (written, did not settle)" : "";
    return `  ${String(i + 1).padStart(2)}. ${time}${t.title}${unsettled}`;
  });
}

function show(v: unknown): string {
  return v === null || v === undefined ? "(unset)" : typeof v === "string" ? v : JSON.stringify(v);
}

/** The fields the diff changes, object by object: "ipipMode: Always -> Never". */
export function renderDiff(diff: unknown, style: Style): string[] {
  if (diff === null || typeof diff !== "object") return [];
  const { before = {}, after = {} } = diff as {
    before?: Record<string, Record<string, unknown>>;
    after?: Record<string, Record<string, unknown>>;
  };
  const lines = ["Diff (fields written):"];
  for (const [object, b] of Object.entries(before)) {
    const a = after[object] ?? {};
    const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].filter(
      (k) => show(b[k]) !== show(a[k]),
    );
    if (!keys.length) continue;
    lines.push(`  ${object}`);
    for (const k of keys)
      lines.push(`    ${k}: ${style.red(show(b[k]))} -> ${style.green(show(a[k]))}`);
  }
  return lines.length > 1 ? lines : [];
}

function failure(r: MigrateResult, style: Style): string[] {
  const lines = [style.red(style.bold("FAILED")), String(r.msg ?? "")];
  const steps = r.steps ?? [];
  if (steps.length) lines.push("", `Steps done (${steps.length}):`, ...numbered(steps));
  if (r.migrated_to) lines.push("", `Now: ${describeState(r.migrated_to)}`);
  if (r.rolled_back === true)
    lines.push("Rolled back: the cluster is as it was before the first write.");
  return lines;
}

function warnings(r: MigrateResult, style: Style): string[] {
  const w = r.warnings ?? [];
  return w.length ? ["", ...w.map((x) => `${style.yellow("warning:")} ${x}`)] : [];
}

/** Printed before the run: where the cluster is, where it goes, the steps planned. */
export function renderPlan(result: object, style: Style): string {
  const r = result as MigrateResult;
  if (r.failed === true) return failure(r, style).join("\n") + "\n";
  const plan = r.plan ?? [];
  const lines = [
    `calico-encap migrate: from ${describeState(r.migrated_from)}`,
    `                      to   ${describeState(r.migrated_to)}`,
  ];
  if (r.changed === true) lines.push(`Plan, ${plural(plan.length, "step")}:`, ...numbered(plan));
  else lines.push(style.green("Nothing to do: the cluster already matches the target."));
  return lines.join("\n") + "\n";
}

/** Printed after the run (or alone with --check). */
export function renderMigrate(result: object, style: Style, check: boolean): string {
  const r = result as MigrateResult;
  if (r.failed === true) return [...failure(r, style), ...warnings(r, style)].join("\n") + "\n";
  const lines: string[] = [];
  if (check) {
    lines.push(renderPlan(result, style).trimEnd());
    lines.push(...(r.diff !== undefined ? ["", ...renderDiff(r.diff, style)] : []));
    lines.push(...warnings(r, style));
    lines.push("", style.dim("--check: nothing was written."));
    return lines.join("\n") + "\n";
  }
  if (r.changed !== true) {
    lines.push(style.green("No change: the cluster already matches the target."));
    lines.push(`Now: ${describeState(r.migrated_to)}`);
    return lines.join("\n") + "\n";
  }
  const steps = r.steps ?? [];
  const total = steps.reduce((t, s) => t + (s.seconds ?? 0), 0);
  lines.push(
    style.green(style.bold(`Migrated in ${plural(steps.length, "step")} (${seconds(total)}):`)),
    ...numbered(steps),
    `Now: ${describeState(r.migrated_to)}`,
  );
  if (r.diff !== undefined) lines.push("", ...renderDiff(r.diff, style));
  lines.push(...warnings(r, style));
  return lines.join("\n") + "\n";
}
