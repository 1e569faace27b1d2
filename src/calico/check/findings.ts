// Building findings: one place for the wording shared by the check's rules.

import type { Finding } from "../shared/model.js";

/** The object Kubespray renders the backend into. */
export const CONFIGMAP = "ConfigMap kube-system/calico-config";
/** The module a remedy points to. */
export const MIGRATE = "calico_encap_migrate";

/** A finding from named fields, so the live and the inventory value cannot be swapped; keys in the schema's order. */
export function finding(f: Finding): Finding {
  const { id, object, field, live, inventory, variable, severity, why, remedy } = f;
  return { id, object, field, live, inventory, variable, severity, why, remedy };
}

export function show(value: unknown): string {
  if (value === null || value === undefined) return "(unset)";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** "IPPool/default-pool spec.ipipMode: cluster has Always, inventory (calico_ipip_mode) says Never" */
export function describe(f: Finding): string {
  const inventory = f.variable ? `inventory (${f.variable}) says ${show(f.inventory)}` : "";
  const cluster = `cluster has ${show(f.live)}`;
  return `${f.object} ${f.field}: ${[cluster, inventory].filter(Boolean).join(", ")}`;
}
