// Calico objects into the model: IPPool, FelixConfiguration, ClusterInformation, whether printed by
// calicoctl (projectcalico.org/v3, defaults filled in) or read by kubectl from crd.projectcalico.org/v1
// (stored without defaults, possibly with the legacy ipip / nat-outgoing fields). Pure.

import type { EncapMode, FelixFlags, Pool } from "../calico/shared/model.js";
import { CLUSTER_ROUTES, ENCAP_MODES } from "../calico/shared/model.js";
import { ipVersionOf } from "../calico/shared/cidr.js";
import { BLOCK_SIZE_RANGE } from "../calico/shared/rules.js";
import type { Json } from "./decode.js";
import { bool, field, str } from "./decode.js";

/** Legacy v1 `ipip.mode` values. */
const LEGACY_IPIP_MODE: Record<string, EncapMode> = {
  always: "Always",
  "cross-subnet": "CrossSubnet",
};

function mode(value: unknown, what: string): EncapMode {
  if (value === undefined || value === null || value === "") return "Never";
  if (typeof value === "string" && (ENCAP_MODES as readonly string[]).includes(value))
    return value as EncapMode;
  throw new Error(`${what} is ${JSON.stringify(value)}, not one of ${ENCAP_MODES.join(", ")}`);
}

function ipipMode(spec: Json, name: string): EncapMode {
  const explicit = spec.ipipMode;
  if (explicit !== undefined && explicit !== "")
    return mode(explicit, `IPPool ${name} spec.ipipMode`);
  const legacy = spec.ipip;
  if (bool(field(legacy, "enabled")) === true)
    return LEGACY_IPIP_MODE[str(field(legacy, "mode")) ?? "always"] ?? "Always";
  return "Never";
}

export function parsePool(obj: Json): Pool {
  const name = str(field(obj, "metadata", "name")) ?? "";
  const spec = (field(obj, "spec") ?? {}) as Json;
  const cidr = str(spec.cidr);
  if (!name || !cidr) throw new Error(`IPPool ${name || "(no name)"} has no spec.cidr`);
  const ipVersion = ipVersionOf(cidr);
  const blockSize =
    typeof spec.blockSize === "number" ? spec.blockSize : Number(spec.blockSize ?? NaN);
  const uses = Array.isArray(spec.allowedUses)
    ? spec.allowedUses.filter((u): u is string => typeof u === "string")
    : [];
  return {
    name,
    cidr,
    ipVersion,
    blockSize: Number.isFinite(blockSize) ? blockSize : BLOCK_SIZE_RANGE[ipVersion].default,
    ipipMode: ipipMode(spec, name),
    vxlanMode: mode(spec.vxlanMode, `IPPool ${name} spec.vxlanMode`),
    natOutgoing: bool(spec.natOutgoing) ?? bool(spec["nat-outgoing"]) ?? false,
    disabled: bool(spec.disabled) ?? false,
    nodeSelector: str(spec.nodeSelector) || "all()",
    allowedUses: uses.length > 0 ? uses : ["Workload", "Tunnel"],
  };
}

export function parseFelixFlags(obj: Json): FelixFlags {
  const flags: FelixFlags = {};
  const ipip = bool(field(obj, "spec", "ipipEnabled"));
  const vxlan = bool(field(obj, "spec", "vxlanEnabled"));
  if (ipip !== undefined) flags.ipipEnabled = ipip;
  if (vxlan !== undefined) flags.vxlanEnabled = vxlan;
  // Calico's API takes Enabled or Disabled only; anything else would not have been stored.
  const routes = CLUSTER_ROUTES.find((v) => v === str(field(obj, "spec", "programClusterRoutes")));
  if (routes !== undefined) flags.programClusterRoutes = routes;
  return flags;
}

/** FelixConfiguration objects into default and node.<name> overrides. */
export function splitFelix(objects: readonly Json[]): {
  felixDefault: FelixFlags | null;
  felixNodes: Record<string, FelixFlags>;
} {
  let felixDefault: FelixFlags | null = null;
  const felixNodes: Record<string, FelixFlags> = {};
  for (const obj of objects) {
    const name = str(field(obj, "metadata", "name")) ?? "";
    if (name === "default") felixDefault = parseFelixFlags(obj);
    else if (name.startsWith("node."))
      felixNodes[name.slice("node.".length)] = parseFelixFlags(obj);
  }
  return { felixDefault, felixNodes };
}

export function calicoVersionOf(clusterInformation: Json | undefined): string | null {
  return str(field(clusterInformation, "spec", "calicoVersion")) || null;
}
