/**
 * Generated from schemas/calico_pool_check.options.json by tools/generate.ts: do not edit.
 * Regenerate with `npm run build && npm run generate`.
 *
 * CalicoPoolCheckOptions: the options as a task gives them (all optional).
 * CalicoPoolCheckParams: the options as run() receives them, after validation and defaults.
 */

/**
 * Options of calico_pool_check. Each option is named after the Kubespray variable it takes (calico_ prefix dropped) and defaults to Kubespray's current default. x-kubespray-variable names an option's Kubespray variable; x-kubespray-fallback, where Kubespray takes the value from when that variable is undefined, as a template over its variables: "{kube_pods_subnet}" or "{bin_dir}/calicoctl.sh" (src/calico/shared/kubespray-fallback.ts). When the fallback's variables are undefined too, the default applies.
 */
export interface CalicoPoolCheckOptions {
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
   * CIDR of the IPv4 pool (Kubespray calico_pool_cidr, defaulting to kube_pods_subnet). Immutable in Calico.
   */
  pool_cidr?: string;
  /**
   * Block size of the IPv4 pool (Kubespray calico_pool_blocksize). Immutable in Calico.
   */
  pool_blocksize?: number;
  /**
   * natOutgoing of the IPv4 pool (Kubespray nat_outgoing).
   */
  nat_outgoing?: boolean;
  /**
   * Whether the cluster has an IPv4 pod network (Kubespray ipv4_stack). false while the cluster has an enabled IPv4 pool is blocking.
   */
  ipv4_stack?: boolean;
  /**
   * Whether the cluster has an IPv6 pod network (Kubespray ipv6_stack, or enable_dual_stack_networks on older releases). Enables the IPv6 pool comparison. false while the cluster has an enabled IPv6 pool is blocking (FELIX_IPV6SUPPORT and IP6 in the calico-node template are named too).
   */
  ipv6_stack?: boolean;
  /**
   * IP-in-IP mode wanted on the IPv6 pool (Kubespray calico_ipip_mode_ipv6). Calico rejects anything but Never.
   */
  ipip_mode_ipv6?: "Always" | "CrossSubnet" | "Never";
  /**
   * VXLAN mode wanted on the IPv6 pool (Kubespray calico_vxlan_mode_ipv6).
   */
  vxlan_mode_ipv6?: "Always" | "CrossSubnet" | "Never";
  /**
   * CIDR of the IPv6 pool (Kubespray calico_pool_cidr_ipv6, defaulting to kube_pods_subnet_ipv6). Immutable in Calico.
   */
  pool_cidr_ipv6?: string;
  /**
   * Block size of the IPv6 pool (Kubespray calico_pool_blocksize_ipv6). Immutable in Calico.
   */
  pool_blocksize_ipv6?: number;
  /**
   * The fork's Calico role keeps an existing pool's blockSize: its tasks/install.yml merges the live pool's spec.blockSize over the inventory's (Kubespray v2.22, and v2.24 on). A pool_blocksize or pool_blocksize_ipv6 that differs from the live pool's then changes nothing, and is a warning. When false (v2.18 to v2.21, and v2.23, apply the inventory's, which Calico refuses) it blocks. The role calico_encap sets it from the fork's tree.
   */
  pool_blocksize_kept?: boolean;
  /**
   * natOutgoing of the IPv6 pool (Kubespray nat_outgoing_ipv6).
   */
  nat_outgoing_ipv6?: boolean;
  /**
   * Calico datastore (Kubespray calico_datastore). Compared with the datastore calico-node uses (calico-config etcd_endpoints, the calico-node template's DATASTORE_TYPE and ETCD_ENDPOINTS): a difference is blocking, also when calicoctl finds no Calico objects because it is set up for the other datastore. With etcd, pools and FelixConfiguration can only be read through calicoctl.
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
   * Fail the task when a blocking finding exists. When false, blocking findings are returned as warnings and the task passes (for ignore_assert_errors).
   */
  fail_on_mismatch?: boolean;
}

/**
 * CalicoPoolCheckOptions after validation (src/protocol/validate.ts): every option present, defaults
 * filled in; options without a default are null when not given.
 */
export interface CalicoPoolCheckParams {
  ipip_mode: NonNullable<CalicoPoolCheckOptions["ipip_mode"]>;
  vxlan_mode: NonNullable<CalicoPoolCheckOptions["vxlan_mode"]>;
  network_backend: NonNullable<CalicoPoolCheckOptions["network_backend"]>;
  pool_name: NonNullable<CalicoPoolCheckOptions["pool_name"]>;
  pool_cidr: NonNullable<CalicoPoolCheckOptions["pool_cidr"]>;
  pool_blocksize: NonNullable<CalicoPoolCheckOptions["pool_blocksize"]>;
  nat_outgoing: NonNullable<CalicoPoolCheckOptions["nat_outgoing"]>;
  ipv4_stack: NonNullable<CalicoPoolCheckOptions["ipv4_stack"]>;
  ipv6_stack: NonNullable<CalicoPoolCheckOptions["ipv6_stack"]>;
  ipip_mode_ipv6: NonNullable<CalicoPoolCheckOptions["ipip_mode_ipv6"]>;
  vxlan_mode_ipv6: NonNullable<CalicoPoolCheckOptions["vxlan_mode_ipv6"]>;
  pool_cidr_ipv6: NonNullable<CalicoPoolCheckOptions["pool_cidr_ipv6"]>;
  pool_blocksize_ipv6: NonNullable<CalicoPoolCheckOptions["pool_blocksize_ipv6"]>;
  pool_blocksize_kept: NonNullable<CalicoPoolCheckOptions["pool_blocksize_kept"]>;
  nat_outgoing_ipv6: NonNullable<CalicoPoolCheckOptions["nat_outgoing_ipv6"]>;
  datastore: NonNullable<CalicoPoolCheckOptions["datastore"]>;
  datastore_client: NonNullable<CalicoPoolCheckOptions["datastore_client"]>;
  calicoctl_path: NonNullable<CalicoPoolCheckOptions["calicoctl_path"]>;
  kubectl_path: NonNullable<CalicoPoolCheckOptions["kubectl_path"]>;
  kubeconfig: NonNullable<CalicoPoolCheckOptions["kubeconfig"]>;
  command_timeout: NonNullable<CalicoPoolCheckOptions["command_timeout"]>;
  fail_on_mismatch: NonNullable<CalicoPoolCheckOptions["fail_on_mismatch"]>;
}
