/**
 * Generated from schemas/calico_encap_migrate.result.json by tools/generate.ts: do not edit.
 * Regenerate with `npm run build && npm run generate`.
 */

/**
 * Return values of calico_encap_migrate.
 */
export interface CalicoEncapMigrateResult {
  /**
   * True when a write was made (or, in check mode, would be).
   */
  changed: boolean;
  /**
   * True when the target is refused, the lock is held, the cluster did not settle, or a step did not converge (after a rollback).
   */
  failed?: boolean;
  /**
   * What happened, or why it failed: what was observed, what was expected and what to do.
   */
  msg: string;
  /**
   * The MTU note when the encapsulation changes; the nodes not waited on because calico-node does not run there (outside the calico-node DaemonSet's nodeSelector, affinity or tolerations, or a stale Calico Node without a Kubernetes Node); a Lease that could not be released.
   */
  warnings?: string[];
  /**
   * The steps planned from the state observed at the start (in check mode: the steps it would take).
   */
  plan: Step[];
  /**
   * Which agent programs the IPIP routes through the pool's switch, and why: 'Felix: ...' (FelixConfiguration programClusterRoutes: Enabled first; Calico v3.31 and v3.32 with the direction's tunnel pool), 'BIRD: ...' (older Calico, no tunnel pool option, or no switch between IPIP and VXLAN) or 'Calico v3.33...: ...' (programClusterRoutes changed there; left as the cluster has it).
   */
  cluster_routes?: string;
  /**
   * The steps done, with their durations (empty in check mode).
   */
  steps: Step[];
  /**
   * With stop_before: the title of the step the run stopped before, unwritten (in check mode: would stop before); a run without stop_before takes it next.
   */
  stopped_before?: string;
  /**
   * With stop_before: the routes of the fallback tables, once for the cluster: each block of the target's IPv4 pools via its Node's (the peer's) VXLAN tunnel address, dev vxlan.calico, onlink. Each Node's table holds those whose peer is another Node. Empty when no pool switch was left. In check mode only once every node has its VTEP (after the tunnel pool's step).
   */
  fallback_routes?: {
    /**
     * The block (IPAM block affinity's cidr).
     */
    dst: string;
    /**
     * The peer's VXLAN tunnel address (projectcalico.org/IPv4VXLANTunnelAddr).
     */
    via: string;
    /**
     * vxlan.calico.
     */
    dev: string;
    /**
     * Always true: the VTEP is not on a subnet of the device.
     */
    onlink: boolean;
    /**
     * The Node whose block it is: every other Node's table holds the route.
     */
    peer: string;
  }[];
  /**
   * With stop_before: every Node's name (Kubespray's kube_override_hostname, else inventory_hostname, of its host), the Nodes the fallback is for. Each needs a host in the play that installs it. Empty when no pool switch was left.
   */
  fallback_nodes?: string[];
  /**
   * With stop_before: the CIDRs of the pools whose blocks fallback_routes routes (the target's IPv4 pools). The fallback's two rules on each host are scoped to them (to CIDR), so that the host's own rules keep every other destination. Empty when no pool switch was left.
   */
  fallback_cidrs?: string[];
  /**
   * True when a step did not settle within wait_timeout (its nodes, or reads of the cluster that kept failing) and the cluster was put back as it was before the first write, and that was verified.
   */
  rolled_back?: boolean;
  migrated_from: State;
  migrated_to: State1;
  /**
   * before/after of every object written or to be written (with --diff).
   */
  diff?: unknown;
}
export interface Step {
  /**
   * What the step does.
   */
  title: string;
  /**
   * The write (felix, pool, backend, or rollout: the calico-node DaemonSet's maxUnavailable) and its values; null for a wait-only step.
   */
  write: unknown;
  /**
   * Seconds from the write until every node converged, or until the run stopped waiting (steps done only).
   */
  seconds?: number;
  /**
   * Steps done only: false for a step that was written but did not settle (the run failed or rolled back during its wait).
   */
  settled?: boolean;
  /**
   * Steps done only: when the step's write was made (UTC, ISO 8601, milliseconds); with seconds, the window in which the cluster changed.
   */
  written_at?: string;
  /**
   * Steps whose write failed only: each command the write sent, in order, the failed one last (an earlier one may have changed the cluster).
   */
  sent?: string[];
  /**
   * Steps whose write failed only: what came back from the command that failed (its exit code and stderr, or that it timed out and may have been applied).
   */
  error?: string;
}
/**
 * The pools' modes and the backend before the run.
 */
export interface State {
  /**
   * The moved pools with their modes.
   */
  pools: {
    /**
     * Pool name.
     */
    name: string;
    /**
     * spec.ipipMode.
     */
    ipip_mode: string;
    /**
     * spec.vxlanMode.
     */
    vxlan_mode: string;
  }[];
  /**
   * calico_backend in calico-config.
   */
  backend: string;
}
/**
 * The pools' modes and the backend after the run (in check mode: the target).
 */
export interface State1 {
  /**
   * The moved pools with their modes.
   */
  pools: {
    /**
     * Pool name.
     */
    name: string;
    /**
     * spec.ipipMode.
     */
    ipip_mode: string;
    /**
     * spec.vxlanMode.
     */
    vxlan_mode: string;
  }[];
  /**
   * calico_backend in calico-config.
   */
  backend: string;
}
