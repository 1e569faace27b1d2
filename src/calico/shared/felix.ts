// Felix's effective IPIP / VXLAN setting, by Calico's precedence (reference/calico.md, FelixConfiguration):
// environment (FELIX_*) > FelixConfiguration node.<name> > FelixConfiguration default >
// derived from the pools (Calico >= 3.23, encapsulation_resolver.go) or false (Calico <= 3.22).

import type { FelixFlags, NodeEnv, Pool } from "./model.js";
import { isOn } from "./model.js";
import { derivesFromPools, parseFelixBool } from "./rules.js";

export type Encapsulation = "ipip" | "vxlan";

export interface EffectiveFlag {
  enabled: boolean;
  source: string;
}

export interface FelixInputs {
  calicoVersion: string | null;
  pools: readonly Pool[];
  felixDefault: FelixFlags | null;
  felixNodes: Record<string, FelixFlags>;
  nodeEnv: NodeEnv | null;
}

/**
 * Each encapsulation's Felix flag, in one place: its FelixConfiguration field, the calico-node env that overrides it,
 * and the Kubespray inventory option whose mode decides it (Kubespray writes `<field>: <option> != 'Never'`).
 */
export const FELIX_FLAG: Record<
  Encapsulation,
  {
    field: "ipipEnabled" | "vxlanEnabled";
    env: keyof NodeEnv;
    envName: string;
    option: "ipip_mode" | "vxlan_mode";
  }
> = {
  ipip: {
    field: "ipipEnabled",
    env: "ipipEnabled",
    envName: "FELIX_IPINIPENABLED",
    option: "ipip_mode",
  },
  vxlan: {
    field: "vxlanEnabled",
    env: "vxlanEnabled",
    envName: "FELIX_VXLANENABLED",
    option: "vxlan_mode",
  },
};

export const ENCAPSULATIONS: readonly Encapsulation[] = ["ipip", "vxlan"];

/** Names of the enabled pools that turn this encapsulation on (VXLAN: IPv4 pools; IPv6 VXLAN follows its own pools). */
export function poolsUsing(pools: readonly Pool[], encap: Encapsulation): string[] {
  return pools
    .filter((p) => !p.disabled)
    .filter((p) => (encap === "ipip" ? isOn(p.ipipMode) : p.ipVersion === 4 && isOn(p.vxlanMode)))
    .map((p) => p.name);
}

/** The flag as calico-node's env sets it (FELIX_IPINIPENABLED / FELIX_VXLANENABLED), over any FelixConfiguration. */
export function envFlag(nodeEnv: NodeEnv | null, encap: Encapsulation): boolean | undefined {
  const value = nodeEnv?.[FELIX_FLAG[encap].env];
  return typeof value === "string" ? parseFelixBool(value) : undefined;
}

/** Felix's effective flag on a node (nodeName undefined: a node without a node.* override). */
export function effectiveFlag(
  inputs: FelixInputs,
  encap: Encapsulation,
  nodeName?: string,
): EffectiveFlag {
  const { field, env, envName } = FELIX_FLAG[encap];
  const fromEnv = envFlag(inputs.nodeEnv, encap);
  if (fromEnv !== undefined)
    return {
      enabled: fromEnv,
      source: `calico-node DaemonSet env ${envName}=${String(inputs.nodeEnv?.[env])}`,
    };
  if (nodeName !== undefined) {
    const fromNode = inputs.felixNodes[nodeName]?.[field];
    if (fromNode !== undefined)
      return {
        enabled: fromNode,
        source: `FelixConfiguration node.${nodeName} ${field}: ${fromNode}`,
      };
  }
  const fromDefault = inputs.felixDefault?.[field];
  if (fromDefault !== undefined)
    return { enabled: fromDefault, source: `FelixConfiguration default ${field}: ${fromDefault}` };
  if (derivesFromPools(inputs.calicoVersion)) {
    const used = poolsUsing(inputs.pools, encap).length > 0;
    return { enabled: used, source: `unset, derived from the pools (Calico >= 3.23): ${used}` };
  }
  return { enabled: false, source: `unset, false by default (Calico < 3.23)` };
}

/** Nodes whose FelixConfiguration node.<name> sets the flag. */
export function nodeOverrides(inputs: FelixInputs, encap: Encapsulation): string[] {
  const { field } = FELIX_FLAG[encap];
  return Object.keys(inputs.felixNodes)
    .filter((n) => inputs.felixNodes[n]?.[field] !== undefined)
    .sort();
}
