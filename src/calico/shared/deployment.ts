// What calico-config and the calico-node pod template say about the datastore and the IP families, the two
// things Kubespray renders from calico_datastore and ipv4_stack / ipv6_stack (reference/kubespray-calico.md).
// Pure: Live in, what the cluster uses and what shows it out.

import type { IpVersion, Live } from "./model.js";
import { parseFelixBool } from "./rules.js";

export type Datastore = "kdd" | "etcd";

export interface Seen<T> {
  value: T;
  /** What shows it, e.g. "calico-node template DATASTORE_TYPE=kubernetes". */
  seen: string[];
}

/**
 * The datastore calico-node uses. Kubespray's template sets DATASTORE_TYPE=kubernetes for kdd, and for etcd
 * ETCD_ENDPOINTS from calico-config's etcd_endpoints (DATASTORE_TYPE unset: calico-node's default, etcdv3).
 * An explicit DATASTORE_TYPE decides; null when nothing shows either.
 */
export function liveDatastore(live: Live): Seen<Datastore> | null {
  const env = live.nodeEnv;
  const etcd: string[] = [];
  if (live.configMapEtcdEndpoints !== null)
    etcd.push(`calico-config data.etcd_endpoints: ${live.configMapEtcdEndpoints}`);
  if (env?.etcdEndpoints !== undefined)
    etcd.push(`calico-node template ETCD_ENDPOINTS from ${env.etcdEndpoints}`);
  const type = env?.datastoreType?.trim().toLowerCase();
  if (type === "kubernetes")
    return { value: "kdd", seen: [`calico-node template DATASTORE_TYPE=${env?.datastoreType}`] };
  if (type === "etcdv3")
    return {
      value: "etcd",
      seen: [`calico-node template DATASTORE_TYPE=${env?.datastoreType}`, ...etcd],
    };
  return etcd.length > 0 ? { value: "etcd", seen: etcd } : null;
}

/**
 * Whether the cluster carries pod traffic of an IP family: an enabled pool of it (blocking evidence), and for
 * IPv6 the template's FELIX_IPV6SUPPORT=true and IP6 autodetection (what Kubespray renders for ipv6_stack).
 */
export function liveFamily(
  live: Live,
  version: IpVersion,
): { pools: string[]; template: string[] } {
  const pools = live.pools
    .filter((p) => p.ipVersion === version && !p.disabled)
    .map((p) => `IPPool/${p.name} ${p.cidr}`);
  const template: string[] = [];
  const env = live.nodeEnv;
  if (version === 6 && env) {
    if (parseFelixBool(env.ipv6Support) === true)
      template.push(`calico-node template FELIX_IPV6SUPPORT=${env.ipv6Support}`);
    if (env.ip6 !== undefined && env.ip6.trim() !== "" && env.ip6.trim().toLowerCase() !== "none")
      template.push(`calico-node template IP6=${env.ip6}`);
  }
  return { pools, template };
}
