/**
 * Generated from schemas/calico_pool_check.result.json by tools/generate.ts: do not edit.
 * Regenerate with `npm run build && npm run generate`.
 */

/**
 * Return values of calico_pool_check.
 */
export interface CalicoPoolCheckResult {
  /**
   * Always false: the module only reads.
   */
  changed: boolean;
  /**
   * True when a blocking finding exists and fail_on_mismatch is true, or the cluster could not be read.
   */
  failed: boolean;
  /**
   * One line per blocking finding naming the field with the live and the inventory value, or a summary that the inventory matches.
   */
  msg: string;
  /**
   * Warning findings (and blocking ones when fail_on_mismatch is false), shown by Ansible as warnings.
   */
  warnings?: string[];
  /**
   * Every difference found, field by field.
   */
  findings: {
    /**
     * Stable identifier, e.g. pool.ipipMode, backend, felix.vxlanEnabled, inventory.ipipVxlanBoth.
     */
    id: string;
    /**
     * The cluster object, e.g. IPPool/default-pool, ConfigMap kube-system/calico-config, FelixConfiguration/default.
     */
    object: string;
    /**
     * The field in that object, e.g. spec.ipipMode.
     */
    field: string;
    /**
     * What the cluster has (null when absent).
     */
    live: unknown;
    /**
     * What the inventory asks for (null when not applicable).
     */
    inventory: unknown;
    /**
     * The Kubespray variable behind the inventory value.
     */
    variable: string;
    /**
     * blocking fails the task (unless fail_on_mismatch is false); warning is reported only.
     */
    severity: "blocking" | "warning";
    /**
     * What would break.
     */
    why: string;
    /**
     * What to do.
     */
    remedy: string;
  }[];
  /**
   * Inventory variables (Kubespray names) that keep today's cluster as it is; empty when Calico is not installed.
   */
  pin_vars: {
    [k: string]: unknown;
  };
  /**
   * Whether calico_encap_migrate can move the live cluster to what the inventory asks for, and with which arguments.
   */
  migration: {
    /**
     * The encapsulation or backend differ.
     */
    needed: boolean;
    /**
     * calico_encap_migrate can reach the inventory's state (no immutable field differs, the target is valid for Calico).
     */
    possible: boolean;
    /**
     * Why a migration is or is not needed or possible, and what to keep in the inventory.
     */
    reason: string;
    /**
     * The module to run: calico_encap_migrate.
     */
    module: string;
    /**
     * The arguments for calico_encap_migrate that reach the inventory's encapsulation and backend.
     */
    args: {
      [k: string]: unknown;
    };
    /**
     * A pool moves into VXLAN, so calico_encap_migrate's tunnel_pool_cidr applies: with it every node's VTEP comes from a Tunnel-only pool before the pool switches, and none moves at the switch. The args leave it out: the network is the user's to choose.
     */
    tunnel_pool_cidr_applies: boolean;
    /**
     * A pool moves from VXLAN into IPIP on Calico v3.31 or v3.32, so calico_encap_migrate's ipip_tunnel_pool_cidr applies: with it Felix programs the IPIP routes (programClusterRoutes) and every node has its IPIP tunnel address from a Tunnel-only pool before the pool switches. The args leave it out: the network is the user's to choose.
     */
    ipip_tunnel_pool_cidr_applies: boolean;
  };
  /**
   * The observed cluster.
   */
  cluster: {
    /**
     * False on a fresh install: no Calico CRDs, no IPPool, or neither calicoctl nor kubectl.
     */
    calico_installed: boolean;
    /**
     * Why Calico counts as not installed, or how it was read.
     */
    reason: string;
    /**
     * calicoctl or kubectl.
     */
    client: string;
    /**
     * ClusterInformation default spec.calicoVersion (null when absent).
     */
    calico_version: string | null;
    /**
     * calico_backend in kube-system/calico-config.
     */
    backend: string | null;
    /**
     * Every IPPool in the cluster.
     */
    pools: Pool[];
    /**
     * Felix's effective encapsulation, by Calico's precedence (DaemonSet env, node.*, default, then the pools on Calico >= 3.23).
     */
    felix: {
      ipip: Flag;
      vxlan: Flag1;
      /**
       * Names of FelixConfiguration node.* objects that set ipipEnabled or vxlanEnabled.
       */
      node_overrides: string[];
    };
  };
  /**
   * What the inventory asks for, after Kubespray's defaults.
   */
  inventory: {
    /**
     * calico_network_backend.
     */
    backend: string;
    /**
     * The pools the inventory asks for: the IPv4 pool when ipv4_stack, the IPv6 pool (<pool_name>-ipv6) when ipv6_stack.
     */
    pools: Pool[];
  };
}
export interface Pool {
  /**
   * Pool name (metadata.name).
   */
  name: string;
  /**
   * spec.cidr (immutable).
   */
  cidr: string;
  /**
   * 4 or 6, from the cidr.
   */
  ip_version: 4 | 6;
  /**
   * spec.blockSize (immutable).
   */
  block_size: number;
  /**
   * spec.ipipMode: Always, CrossSubnet or Never.
   */
  ipip_mode: string;
  /**
   * spec.vxlanMode: Always, CrossSubnet or Never.
   */
  vxlan_mode: string;
  /**
   * spec.natOutgoing.
   */
  nat_outgoing: boolean;
  /**
   * spec.disabled: no new addresses or tunnel addresses come from a disabled pool.
   */
  disabled: boolean;
  /**
   * spec.nodeSelector: the nodes the pool serves.
   */
  node_selector: string;
}
/**
 * Felix's effective IPIP setting on nodes without a node.* override.
 */
export interface Flag {
  /**
   * Felix's effective value.
   */
  enabled: boolean;
  /**
   * Where the value comes from (DaemonSet env, FelixConfiguration, pools, built-in default).
   */
  source: string;
}
/**
 * Felix's effective IPv4 VXLAN setting on nodes without a node.* override.
 */
export interface Flag1 {
  /**
   * Felix's effective value.
   */
  enabled: boolean;
  /**
   * Where the value comes from (DaemonSet env, FelixConfiguration, pools, built-in default).
   */
  source: string;
}
