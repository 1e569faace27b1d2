// Kubespray's inventory semantics: which variable each option stands for, and how the inventory
// becomes the pools and backend Kubespray would write. The option defaults live in schemas/ only.

import optionsSchema from "../../../schemas/calico_pool_check.options.json" with { type: "json" };
import { FELIX_FLAG } from "./felix.js";
import type { Backend, Desired, DesiredPool, EncapMode } from "./model.js";
import { isOn } from "./model.js";
import type { Target } from "./observation.js";
import { canonicalCidr } from "./cidr.js";
import type { TunnelEncap } from "./tunnel-pool.js";
import { tunnelPoolCidrProblem } from "./tunnel-pool.js";

/** The inventory as the modules take it: option names are Kubespray's variables without calico_. */
export interface InventoryOptions {
  ipip_mode: EncapMode;
  vxlan_mode: EncapMode;
  network_backend: Backend;
  pool_name: string;
  pool_cidr: string;
  pool_blocksize: number;
  nat_outgoing: boolean;
  ipv4_stack: boolean;
  ipv6_stack: boolean;
  ipip_mode_ipv6: EncapMode;
  vxlan_mode_ipv6: EncapMode;
  pool_cidr_ipv6: string;
  pool_blocksize_ipv6: number;
  nat_outgoing_ipv6: boolean;
  /** The fork's Calico role keeps an existing pool's blockSize (install.yml merges the live one over the inventory's). */
  pool_blocksize_kept: boolean;
  datastore: "kdd" | "etcd";
}

export type InventoryOption = keyof InventoryOptions;

const properties = optionsSchema.properties as Record<string, { "x-kubespray-variable"?: string }>;

/** The Kubespray variable behind an option, e.g. ipip_mode -> calico_ipip_mode. */
export function kubesprayVariable(option: InventoryOption): string {
  const variable = properties[option]?.["x-kubespray-variable"];
  if (variable === undefined) throw new Error(`schema names no Kubespray variable for ${option}`);
  return variable;
}

/** Kubespray names the IPv6 pool after the IPv4 one. */
export function ipv6PoolName(poolName: string): string {
  return `${poolName}-ipv6`;
}

/** The pools and backend Kubespray would write for this inventory. */
export function desiredFromInventory(o: InventoryOptions): Desired {
  const pools: DesiredPool[] = [];
  if (o.ipv4_stack)
    pools.push({
      name: o.pool_name,
      cidr: o.pool_cidr,
      ipVersion: 4,
      blockSize: o.pool_blocksize,
      blockSizeKept: o.pool_blocksize_kept,
      ipipMode: o.ipip_mode,
      vxlanMode: o.vxlan_mode,
      natOutgoing: o.nat_outgoing,
    });
  if (o.ipv6_stack)
    pools.push({
      name: ipv6PoolName(o.pool_name),
      cidr: o.pool_cidr_ipv6,
      ipVersion: 6,
      blockSize: o.pool_blocksize_ipv6,
      blockSizeKept: o.pool_blocksize_kept,
      ipipMode: o.ipip_mode_ipv6,
      vxlanMode: o.vxlan_mode_ipv6,
      natOutgoing: o.nat_outgoing_ipv6,
    });
  return {
    backend: o.network_backend,
    pools,
    datastore: o.datastore,
    felix: kubesprayFelixFlags(o),
  };
}

/**
 * The encapsulation flags Kubespray's Calico role writes to FelixConfiguration default on every run, explicit
 * whatever the cluster holds, from the IPv4 modes alone (install.yml, "Configure calico FelixConfiguration" in
 * v2.18, "Set kubespray FelixConfiguration" from v2.19 to v2.31: `ipipEnabled: calico_ipip_mode != 'Never'`,
 * `vxlanEnabled: calico_vxlan_mode != 'Never'`, merged over the live object and applied with calicoctl).
 */
export function kubesprayFelixFlags(o: InventoryOptions): Desired["felix"] {
  return {
    ipipEnabled: isOn(o[FELIX_FLAG.ipip.option]),
    vxlanEnabled: isOn(o[FELIX_FLAG.vxlan.option]),
  };
}

/** The options (by IP version) that hold each pool field, for findings and pin_vars. */
export const POOL_OPTIONS: Record<
  4 | 6,
  {
    cidr: InventoryOption;
    blockSize: InventoryOption;
    ipipMode: InventoryOption;
    vxlanMode: InventoryOption;
    natOutgoing: InventoryOption;
  }
> = {
  4: {
    cidr: "pool_cidr",
    blockSize: "pool_blocksize",
    ipipMode: "ipip_mode",
    vxlanMode: "vxlan_mode",
    natOutgoing: "nat_outgoing",
  },
  6: {
    cidr: "pool_cidr_ipv6",
    blockSize: "pool_blocksize_ipv6",
    ipipMode: "ipip_mode_ipv6",
    vxlanMode: "vxlan_mode_ipv6",
    natOutgoing: "nat_outgoing_ipv6",
  },
};

/** calico_encap_migrate's target options (Kubespray's variables). */
export interface TargetOptions {
  ipip_mode: EncapMode;
  vxlan_mode: EncapMode;
  network_backend: Backend;
  pool_name: string;
  extra_pools: string[];
  ipv6_stack: boolean;
  vxlan_mode_ipv6: EncapMode;
  tunnel_pool_cidr?: string | null;
  ipip_tunnel_pool_cidr?: string | null;
  pods_subnet?: string | null;
  service_addresses?: string | null;
}

export function targetFromOptions(o: TargetOptions): Target {
  const v4 = [o.pool_name, ...o.extra_pools.filter((n) => n !== o.pool_name)].map((name) => ({
    name,
    ipipMode: o.ipip_mode,
    vxlanMode: o.vxlan_mode,
  }));
  const v6 = o.ipv6_stack
    ? [
        {
          name: ipv6PoolName(o.pool_name),
          ipipMode: "Never" as const,
          vxlanMode: o.vxlan_mode_ipv6,
        },
      ]
    : [];
  const cluster = [
    { variable: "kube_pods_subnet", cidr: o.pods_subnet },
    { variable: "kube_service_addresses", cidr: o.service_addresses },
  ].filter(
    (c): c is { variable: string; cidr: string } => typeof c.cidr === "string" && c.cidr !== "",
  );
  // A tunnel pool's CIDR as Calico stores it (host bits zeroed): what is created is what is compared and shown. A
  // malformed one stays as given, for tunnelPoolCidrProblem to name.
  const canonical = (cidr: string, encap: TunnelEncap): string =>
    tunnelPoolCidrProblem(cidr, encap) ? cidr : (canonicalCidr(cidr) ?? cidr);
  const tunnel = {
    ...(o.tunnel_pool_cidr ? { tunnelPoolCidr: canonical(o.tunnel_pool_cidr, "vxlan") } : {}),
    ...(o.ipip_tunnel_pool_cidr
      ? { ipipTunnelPoolCidr: canonical(o.ipip_tunnel_pool_cidr, "ipip") }
      : {}),
  };
  return {
    pools: [...v4, ...v6],
    backend: o.network_backend,
    ...tunnel,
    ...(Object.keys(tunnel).length ? { clusterCidrs: cluster } : {}),
  };
}
