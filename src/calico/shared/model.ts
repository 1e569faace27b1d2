// The encapsulation model: Calico's and Kubespray's vocabulary as types. No I/O here.

export const ENCAP_MODES = ["Always", "CrossSubnet", "Never"] as const;
export type EncapMode = (typeof ENCAP_MODES)[number];

export const BACKENDS = ["bird", "vxlan", "none"] as const;
export type Backend = (typeof BACKENDS)[number];

export type IpVersion = 4 | 6;

/** maxUnavailable as the Kubernetes API has it: a count or a percentage; null when unset (the default, 1). */
export type MaxUnavailable = number | string | null;

/** An IPPool as Calico means it, with every default filled in (as calicoctl prints it). */
export interface Pool {
  name: string;
  cidr: string;
  ipVersion: IpVersion;
  blockSize: number;
  ipipMode: EncapMode;
  vxlanMode: EncapMode;
  natOutgoing: boolean;
  disabled: boolean;
  nodeSelector: string;
  /** allowedUses; Calico's default is Workload and Tunnel. */
  allowedUses: string[];
}

/** ipipEnabled / vxlanEnabled as one FelixConfiguration object holds them: undefined means unset. */
export interface FelixFlags {
  ipipEnabled?: boolean;
  vxlanEnabled?: boolean;
  /**
   * programClusterRoutes (Calico >= 3.31; unset means Disabled): Felix, not BIRD, programs the IPIP routes
   * (cluster-routes.ts).
   */
  programClusterRoutes?: ClusterRoutes;
}

export const CLUSTER_ROUTES = ["Enabled", "Disabled"] as const;
export type ClusterRoutes = (typeof CLUSTER_ROUTES)[number];

/** The calico-node DaemonSet's container env that decides routing, the datastore and the IP families. */
export interface NodeEnv {
  /** FELIX_IPINIPENABLED as written (Felix parses it as a bool). */
  ipipEnabled?: string;
  /** FELIX_VXLANENABLED as written. */
  vxlanEnabled?: string;
  /** A literal CALICO_NETWORKING_BACKEND value; undefined when taken from the ConfigMap or absent. */
  networkingBackend?: string;
  /** True when CALICO_NETWORKING_BACKEND comes from calico-config's calico_backend key. */
  backendFromConfigMap: boolean;
  /** DATASTORE_TYPE as written (kubernetes, etcdv3); Kubespray sets it to kubernetes for calico_datastore kdd. */
  datastoreType?: string;
  /** ETCD_ENDPOINTS: its literal value, or "calico-config etcd_endpoints" when taken from the ConfigMap (etcd). */
  etcdEndpoints?: string;
  /** FELIX_IPV6SUPPORT as written (Kubespray: its ipv6_stack). */
  ipv6Support?: string;
  /** IP6 as written (autodetect when Kubespray's ipv6_stack is on). */
  ip6?: string;
}

/** What Kubespray's last apply left: calico-node's env names in order, and two annotations (kubespray-apply.ts). */
export interface KubesprayApplied {
  /** The calico-node container's env names, in the DaemonSet's order. */
  envNames: string[];
  /** calico-config's last-applied-configuration; undefined when kubectl apply did not write it. */
  configMap?: string;
  /** The DaemonSet's last-applied-configuration; undefined when kubectl apply did not write it. */
  daemonSet?: string;
}

/** The live cluster, as observed. */
export interface Live {
  /** false on a fresh install: no Calico CRDs, no pool, or no calicoctl. */
  calicoInstalled: boolean;
  /** Why calicoInstalled is false, or how the cluster was read. */
  reason: string;
  client: "calicoctl" | "kubectl";
  calicoVersion: string | null;
  pools: Pool[];
  felixDefault: FelixFlags | null;
  /** FelixConfiguration node.<name> objects, keyed by node name. */
  felixNodes: Record<string, FelixFlags>;
  /** calico_backend in ConfigMap kube-system/calico-config; null when the ConfigMap or key is missing. */
  configMapBackend: string | null;
  /** etcd_endpoints in calico-config (Kubespray writes it for calico_datastore etcd); null when missing. */
  configMapEtcdEndpoints: string | null;
  /** null when the calico-node DaemonSet is missing. Read even when no Calico object was found. */
  nodeEnv: NodeEnv | null;
  /**
   * The maxUnavailable an interrupted calico_encap_migrate keeps in the calico-node DaemonSet's annotation
   * (rollout.ts, HELD_MAX_UNAVAILABLE); undefined without the annotation.
   */
  heldMaxUnavailable?: MaxUnavailable;
  /** What Kubespray's last `kubectl apply` left on calico-config and the DaemonSet (kubespray-apply.ts). */
  kubesprayApplied?: KubesprayApplied;
}

/** What the inventory asks for, after Kubespray's defaults. */
export interface DesiredPool {
  name: string;
  cidr: string;
  ipVersion: IpVersion;
  blockSize: number;
  /** Kubespray's role keeps an existing pool's blockSize rather than write this one (v2.22, v2.24 on). */
  blockSizeKept: boolean;
  ipipMode: EncapMode;
  vxlanMode: EncapMode;
  natOutgoing: boolean;
}

export interface Desired {
  backend: Backend;
  /** The IPv4 pool when ipv4_stack, then the IPv6 pool when ipv6_stack. */
  pools: DesiredPool[];
  datastore: "kdd" | "etcd";
  /** The flags Kubespray's Calico role writes to FelixConfiguration default on every run (kubespray.ts). */
  felix: Required<Pick<FelixFlags, "ipipEnabled" | "vxlanEnabled">>;
}

export type Severity = "blocking" | "warning";

export interface Finding {
  id: string;
  object: string;
  field: string;
  live: unknown;
  inventory: unknown;
  variable: string;
  severity: Severity;
  why: string;
  remedy: string;
}

/** True when a mode turns the encapsulation on (Always or CrossSubnet). */
export function isOn(mode: EncapMode): boolean {
  return mode !== "Never";
}
