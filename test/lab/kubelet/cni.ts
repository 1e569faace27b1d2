// The Calico CNI plugin, called the way kubelet (through libcni) calls it for a pod: ADD when the pod's sandbox is
// created, DEL when it goes. The network configuration is Kubespray's cni-calico.conflist.j2 as rendered for this
// lab (conflist() below); the portmap and bandwidth plugins of that list are not built here, and no pod of the lab
// maps ports, so only the calico plugin runs. With an IPv6 pool (the dualstack profile) the ipam section is the one
// the template renders with enable_dual_stack_networks (and calico_cni_pool_ipv6, its default): assign_ipv6 "true"
// and ipv6_pools [calico_pool_cidr_ipv6], next to the IPv4 keys (kubespray roles/network_plugin/calico/templates/
// cni-calico.conflist.j2, before it moved into calico-config.yml.j2, where v2.24+ keeps assign_ipv6 with ipv6_stack).

import type { Sandbox } from "./sandbox.js";

export interface CniContext {
  datastore: "kdd" | "etcd";
  nodename: string;
  poolCidr: string;
  /** The IPv6 pool's CIDR (calico_pool_cidr_ipv6) when the cluster is dual-stack, else null. */
  pool6Cidr: string | null;
  kubeconfig: string;
  etcdEndpoints: string | null;
}

/**
 * Kubespray's conflist (calico plugin entry), as rendered with enable_network_policy true and no calico_mtu; with
 * enable_dual_stack_networks when the cluster has an IPv6 pool.
 */
export function conflist(ctx: CniContext): Record<string, unknown> {
  const calico: Record<string, unknown> = {
    ...(ctx.datastore === "kdd" ? { datastore_type: "kubernetes" } : {}),
    nodename: ctx.nodename,
    type: "calico",
    log_level: "info",
    log_file_path: "/var/log/calico/cni/cni.log",
    ...(ctx.datastore === "etcd" && ctx.etcdEndpoints ? { etcd_endpoints: ctx.etcdEndpoints } : {}),
    ipam: {
      type: "calico-ipam",
      ...(ctx.pool6Cidr ? { assign_ipv6: "true", ipv6_pools: [ctx.pool6Cidr] } : {}),
      ipv4_pools: [ctx.poolCidr],
      assign_ipv4: "true",
    },
    policy: { type: "k8s" },
    kubernetes: { kubeconfig: ctx.kubeconfig },
  };
  return {
    name: "cni0",
    cniVersion: "0.3.1",
    plugins: [calico, { type: "portmap", capabilities: { portMappings: true } }],
  };
}

export interface PodRef {
  namespace: string;
  name: string;
  uid: string;
  containerId: string;
  netnsPath: string;
}

export interface CniAddResult {
  ips: string[];
}

/** libcni: the plugin gets its own entry, with the list's name and cniVersion. */
function pluginConfig(list: Record<string, unknown>): string {
  const plugins = list.plugins as Record<string, unknown>[];
  return JSON.stringify({ cniVersion: list.cniVersion, name: list.name, ...plugins[0] });
}

async function run(
  sandbox: Sandbox,
  cniBin: string,
  command: "ADD" | "DEL",
  pod: PodRef,
  list: Record<string, unknown>,
): Promise<string> {
  const env = {
    CNI_COMMAND: command,
    CNI_CONTAINERID: pod.containerId,
    CNI_NETNS: pod.netnsPath,
    CNI_IFNAME: "eth0",
    CNI_PATH: cniBin,
    CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=${pod.namespace};K8S_POD_NAME=${pod.name};K8S_POD_INFRA_CONTAINER_ID=${pod.containerId};K8S_POD_UID=${pod.uid}`,
  };
  const r = await sandbox.exec([`${cniBin}/calico`], env, 60000, pluginConfig(list));
  if (r.code !== 0) {
    throw new Error(
      `CNI ${command} for ${pod.namespace}/${pod.name} failed (${r.code ?? r.signal}): ${r.output.slice(0, 800)}`,
    );
  }
  return r.stdout;
}

export async function cniAdd(
  sandbox: Sandbox,
  cniBin: string,
  pod: PodRef,
  list: Record<string, unknown>,
): Promise<CniAddResult> {
  const out = await run(sandbox, cniBin, "ADD", pod, list);
  const result = JSON.parse(out) as { ips?: { address: string }[] };
  return { ips: (result.ips ?? []).map((i) => i.address.split("/")[0] ?? i.address) };
}

export async function cniDel(
  sandbox: Sandbox,
  cniBin: string,
  pod: PodRef,
  list: Record<string, unknown>,
): Promise<void> {
  await run(sandbox, cniBin, "DEL", pod, list);
}
