// calico-encap check's output: a header naming what was read, the verdict, the module's message
// (already written for a person), its warnings, and a footer. Pure.

import type { CalicoPoolCheckResult } from "../generated/calico_pool_check.result.js";
import type { Style } from "./style.js";

type CheckResult = Partial<CalicoPoolCheckResult> & Record<string, unknown>;

function header(r: CheckResult): string {
  const c = r.cluster;
  if (c === undefined) return "calico-encap check";
  if (!c.calico_installed) return "calico-encap check: no Calico found";
  const version = c.calico_version ? `Calico ${c.calico_version}` : "Calico";
  const pools = c.pools.map(
    (p) =>
      `IPPool ${p.name} ${p.cidr} (ipipMode ${p.ipip_mode}, vxlanMode ${p.vxlan_mode}, blockSize ${p.block_size})`,
  );
  return [
    `calico-encap check: ${version} read with ${c.client}, backend ${c.backend ?? "(unset)"}`,
    ...pools.map((p) => `  ${p}`),
  ].join("\n");
}

function verdict(r: CheckResult, style: Style): string {
  const blocking = (r.findings ?? []).filter((f) => f.severity === "blocking").length;
  if (r.failed === true) {
    return blocking > 0
      ? style.red(style.bold(`BLOCKED: ${blocking} blocking finding${blocking === 1 ? "" : "s"}`))
      : style.red(style.bold("FAILED"));
  }
  if ((r.warnings ?? []).length > 0) return style.yellow(style.bold("PASSED, with warnings"));
  return style.green(style.bold("PASSED"));
}

/** `migrateCommand`: the calico-encap migrate command line for the module's migration hint. */
export function renderCheck(
  result: object,
  style: Style,
  migrateCommand: string | null = null,
): string {
  const r = result as CheckResult;
  const lines = [header(r), "", verdict(r, style), String(r.msg ?? "")];
  const warnings = r.warnings ?? [];
  if (warnings.length) lines.push("", ...warnings.map((w) => `${style.yellow("warning:")} ${w}`));
  lines.push("");
  if (migrateCommand !== null)
    lines.push("To migrate instead of pinning, outside Ansible:", `  ${migrateCommand}`);
  lines.push(style.dim("Nothing was changed: the check only reads. (--json for the full result)"));
  return lines.join("\n") + "\n";
}
