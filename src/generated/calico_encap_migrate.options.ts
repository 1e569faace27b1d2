/**
 * Generated from schemas/calico_encap_migrate.options.json by tools/generate.ts: do not edit.
 * Regenerate with `npm run build && npm run generate`.
 *
 * CalicoEncapMigrateOptions: the options as a task gives them (all optional).
 * CalicoEncapMigrateParams: the options as run() receives them, after validation and defaults.
 */

/**
 * Options of calico_encap_migrate: the target encapsulation, named after Kubespray's variables. x-kubespray-variable names an option's Kubespray variable; x-kubespray-fallback, where Kubespray takes the value from when that variable is undefined, as a template over its variables: "{kube_pods_subnet}" or "{bin_dir}/calicoctl.sh" (src/calico/shared/kubespray-fallback.ts). When the fallback's variables are undefined too, the default applies.
 */
export interface CalicoEncapMigrateOptions {
  /**
   * IP-in-IP mode wanted on the IPv4 pool (Kubespray calico_ipip_mode).
   */
  ipip_mode?: "Always" | "CrossSubnet" | "Never";
  /**
   * VXLAN mode wanted on the IPv4 pool (Kubespray calico_vxlan_mode).
   */
  vxlan_mode?: "Always" | "CrossSubnet" | "Never";
  /**
   * Calico networking backend wanted in kube-system/calico-config calico_backend (Kubespray calico_network_backend). bird runs BGP (needed by IP-in-IP pools and by pools without encapsulation, IPv4 or IPv6); vxlan and none do not.
   */
  network_backend?: "bird" | "vxlan" | "none";
  /**
   * Name of the IPv4 IPPool (Kubespray calico_pool_name). The IPv6 pool is named <pool_name>-ipv6.
   */
  pool_name?: string;
  /**
   * Other IPPools to move to the same ipip_mode and vxlan_mode (IPv4 pools). By default only Kubespray's pool (and its IPv6 pool with ipv6_stack) moves; other pools keep their modes, and the migration refuses a target that would strand them.
   */
  extra_pools?: string[];
  /**
   * An IPv4 network for a Tunnel-only VXLAN pool, <pool_name>-vxlan-tunnel (vxlanMode Always, allowedUses Tunnel, blockSize 32, disableBGPExport, the pool's nodeSelector). When a pool moves into VXLAN, the migration first creates it and waits until every node has its VXLAN tunnel address (VTEP) from it, so that no VTEP moves and Felix does not restart at the pool's switch. The pool stays afterwards (deleting it would move every VTEP again; calico_pool_check knows it). Refused before any write when it is not IPv4, overlaps a pool, pods_subnet or service_addresses, contains a node's address, or holds fewer addresses than the nodes plus headroom. On Calico v3.31 and v3.32, when the pool leaves IPIP, FelixConfiguration default programClusterRoutes: Enabled is set (with ipipEnabled and vxlanEnabled explicitly true) before the tunnel pool is created, so that Felix alone replaces each block's IPIP route with its VXLAN route at the switch; it is unset again, with the unused flags, once no IPIP pool remains (on v3.31; from v3.32 it stays Enabled, because BGPConfiguration programClusterRoutes: Disabled can leave the cluster routes to Felix alone, and calico-encap does not read it). Opt-in: empty (the default), the pool switches in place; unused when no pool moves into VXLAN.
   */
  tunnel_pool_cidr?: string;
  /**
   * Calico v3.31 and v3.32: an IPv4 network for a Tunnel-only IPIP pool, <pool_name>-ipip-tunnel (ipipMode Always, allowedUses Tunnel, blockSize 32, disableBGPExport, the pool's nodeSelector). When a pool moves from VXLAN into IPIP, the migration first sets FelixConfiguration default programClusterRoutes: Enabled and ipipEnabled: true (Felix, not BIRD, then programs the IPIP routes), creates this pool and waits until every node has its IPIP tunnel address from it (Felix brings tunl0 up with it), then switches the pool: Felix replaces each block's VXLAN route with its IPIP route in one write. programClusterRoutes stays Enabled afterwards (turning it off hands the routes back to BIRD with a gap of up to its 2 s scan). The same refusals as tunnel_pool_cidr, and refused on Calico before v3.31 and from v3.33 (whose programClusterRoutes has four values and is Felix's by default). Into VXLAN on Calico v3.31 and v3.32, tunnel_pool_cidr alone puts Felix in charge of the routes the same way (programClusterRoutes is unset again once no IPIP pool remains, on v3.31). Opt-in: empty (the default), BIRD programs the IPIP routes; unused when no pool moves into IPIP.
   */
  ipip_tunnel_pool_cidr?: string;
  /**
   * pool_switch stops the run just before the write that switches a pool between IPIP and VXLAN, on BIRD's path (Calico before v3.31, or v3.31 and v3.32 without the direction's tunnel pool option), with every node's VTEP from the VXLAN tunnel pool in place, and returns fallback_routes: each block of the target's IPv4 pools (its IPAM block affinity, read with kubectl) via its Node's VXLAN tunnel address on vxlan.calico, onlink, for the fallback routing table the collection's migrate.yml installs on every host while BIRD and Felix hand the routes over. A second run without it resumes from the cluster's state and goes to the end. Refused before any write on Felix's path, without a VXLAN tunnel pool (tunnel_pool_cidr into VXLAN; out of VXLAN one kept from the way in), with the etcd datastore, and when the kubeconfig's identity may not list blockaffinities. pool_switch_on_bird_path (migrate.yml's default) stops there only where pool_switch would not be refused, and elsewhere goes to the end as without it; on BIRD's path it then warns why the fallback cannot cover the switch (except for a missing tunnel pool, which the in-place warning names). Empty (the default): the run goes to the end; no pool switch left: nothing to stop before, the run goes to the end and fallback_routes is empty.
   */
  stop_before?: "" | "pool_switch" | "pool_switch_on_bird_path";
  /**
   * The cluster's IPv4 pod network (Kubespray kube_pods_subnet). Only tunnel_pool_cidr and ipip_tunnel_pool_cidr are checked against it.
   */
  pods_subnet?: string;
  /**
   * The cluster's IPv4 service network (Kubespray kube_service_addresses). Only tunnel_pool_cidr and ipip_tunnel_pool_cidr are checked against it.
   */
  service_addresses?: string;
  /**
   * Whether the cluster has an IPv6 pod network (Kubespray ipv6_stack, or enable_dual_stack_networks on older releases). Enables the IPv6 pool comparison.
   */
  ipv6_stack?: boolean;
  /**
   * VXLAN mode wanted on the IPv6 pool (Kubespray calico_vxlan_mode_ipv6).
   */
  vxlan_mode_ipv6?: "Always" | "CrossSubnet" | "Never";
  /**
   * Calico datastore (Kubespray calico_datastore). With etcd, pools and FelixConfiguration can only be read through calicoctl.
   */
  datastore?: "kdd" | "etcd";
  /**
   * How to read the cluster. calicoctl runs calicoctl_path (validated by Calico, kdd or etcd); kubectl reads the crd.projectcalico.org objects with kubeconfig (kdd only); auto uses calicoctl when calicoctl_path exists, else kubectl.
   */
  datastore_client?: "auto" | "calicoctl" | "kubectl";
  /**
   * calicoctl or Kubespray's wrapper ({{ bin_dir }}/calicoctl.sh), which sets the datastore environment itself.
   */
  calicoctl_path?: string;
  /**
   * kubectl binary ({{ bin_dir }}/kubectl). Also used with datastore_client calicoctl to read the calico-config ConfigMap and the calico-node DaemonSet.
   */
  kubectl_path?: string;
  /**
   * kubeconfig for kubectl (Kubespray's admin kubeconfig on control-plane hosts).
   */
  kubeconfig?: string;
  /**
   * Seconds each datastore command may run before it is stopped and the task fails.
   */
  command_timeout?: number;
  /**
   * VXLAN VNI written into the calico-node DaemonSet as FELIX_VXLANVNI when the backend becomes vxlan (Kubespray calico_vxlan_vni).
   */
  vxlan_vni?: number;
  /**
   * VXLAN UDP port written as FELIX_VXLANPORT when the backend becomes vxlan (Kubespray calico_vxlan_port). It must be open between nodes.
   */
  vxlan_port?: number;
  /**
   * Seconds a step's wait may go without progress towards its condition (every node's tunnel address, calico-node ready, the rollout done): the wait ends wait_timeout after it began or after the last node converged or calico-node pod was updated or became ready, so a roll through many nodes at the DaemonSet's maxUnavailable gets the time it takes. A read of the cluster that fails during a wait counts as not yet converged. When a step times out, the migration rolls back to the state before its first write and verifies it. Nodes calico-node does not run on (outside the calico-node DaemonSet's nodeSelector, affinity or tolerations, or stale Calico Nodes) are not waited on and are named in warnings.
   */
  wait_timeout?: number;
  /**
   * Seconds between polls of the datastore while waiting.
   */
  wait_sleep?: number;
}

/**
 * CalicoEncapMigrateOptions after validation (src/protocol/validate.ts): every option present, defaults
 * filled in; options without a default are null when not given.
 */
export interface CalicoEncapMigrateParams {
  ipip_mode: NonNullable<CalicoEncapMigrateOptions["ipip_mode"]>;
  vxlan_mode: NonNullable<CalicoEncapMigrateOptions["vxlan_mode"]>;
  network_backend: NonNullable<CalicoEncapMigrateOptions["network_backend"]>;
  pool_name: NonNullable<CalicoEncapMigrateOptions["pool_name"]>;
  extra_pools: NonNullable<CalicoEncapMigrateOptions["extra_pools"]>;
  tunnel_pool_cidr: NonNullable<CalicoEncapMigrateOptions["tunnel_pool_cidr"]>;
  ipip_tunnel_pool_cidr: NonNullable<CalicoEncapMigrateOptions["ipip_tunnel_pool_cidr"]>;
  stop_before: NonNullable<CalicoEncapMigrateOptions["stop_before"]>;
  pods_subnet: NonNullable<CalicoEncapMigrateOptions["pods_subnet"]>;
  service_addresses: NonNullable<CalicoEncapMigrateOptions["service_addresses"]>;
  ipv6_stack: NonNullable<CalicoEncapMigrateOptions["ipv6_stack"]>;
  vxlan_mode_ipv6: NonNullable<CalicoEncapMigrateOptions["vxlan_mode_ipv6"]>;
  datastore: NonNullable<CalicoEncapMigrateOptions["datastore"]>;
  datastore_client: NonNullable<CalicoEncapMigrateOptions["datastore_client"]>;
  calicoctl_path: NonNullable<CalicoEncapMigrateOptions["calicoctl_path"]>;
  kubectl_path: NonNullable<CalicoEncapMigrateOptions["kubectl_path"]>;
  kubeconfig: NonNullable<CalicoEncapMigrateOptions["kubeconfig"]>;
  command_timeout: NonNullable<CalicoEncapMigrateOptions["command_timeout"]>;
  vxlan_vni: NonNullable<CalicoEncapMigrateOptions["vxlan_vni"]>;
  vxlan_port: NonNullable<CalicoEncapMigrateOptions["vxlan_port"]>;
  wait_timeout: NonNullable<CalicoEncapMigrateOptions["wait_timeout"]>;
  wait_sleep: NonNullable<CalicoEncapMigrateOptions["wait_sleep"]>;
}
