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
    reason: string;
    module: string;
    args: {
      [k: string]: unknown;
    };
  };
  /**
   * The observed cluster.
   */
  cluster: {
    calico_installed: boolean;
    /**
     * Why Calico counts as not installed, or how it was read.
     */
    reason: string;
    /**
     * calicoctl or kubectl.
     */
    client: string;
    calico_version: string | null;
    /**
     * calico_backend in kube-system/calico-config.
     */
    backend: string | null;
    pools: Pool[];
    felix: {
      ipip: Flag;
      vxlan: Flag;
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
    backend: string;
    pools: Pool[];
  };
}
export interface Pool {
  name: string;
  cidr: string;
  ip_version: 4 | 6;
  block_size: number;
  ipip_mode: string;
  vxlan_mode: string;
  nat_outgoing: boolean;
  disabled: boolean;
  node_selector: string;
}
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
