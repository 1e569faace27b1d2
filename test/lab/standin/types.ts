// The slices of Kubernetes and Calico (KDD, crd.projectcalico.org/v1) objects the stand-in reads. Only the fields
// it uses; everything optional, as stored objects carry no defaults (reference/calico.md, IPPool: "kubectl get
// ippools.crd.projectcalico.org shows the stored v1 object without defaults").

export interface Meta {
  name: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
  creationTimestamp?: string;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { configMapKeyRef?: { name: string; key: string; optional?: boolean } };
}

export interface Container {
  name: string;
  image?: string;
  env?: EnvVar[];
  readinessProbe?: { exec?: { command?: string[] } };
}

export interface PodStatus {
  phase?: string;
  podIP?: string;
  hostIP?: string;
  conditions?: { type: string; status: string }[];
  containerStatuses?: { name: string; ready: boolean }[];
}

export interface Pod {
  metadata: Meta;
  spec: { nodeName?: string; containers: Container[] };
  status?: PodStatus;
}

export interface Node {
  metadata: Meta;
  status?: { addresses?: { type: string; address: string }[] };
}

export interface ConfigMap {
  metadata: Meta;
  data?: Record<string, string>;
}

export interface IPPool {
  metadata: Meta;
  spec: {
    cidr: string;
    blockSize?: number;
    ipipMode?: string;
    vxlanMode?: string;
    disabled?: boolean;
    nodeSelector?: string;
    allowedUses?: string[];
  };
}

export interface FelixConfiguration {
  metadata: Meta;
  spec?: { ipipEnabled?: boolean; vxlanEnabled?: boolean; vxlanVNI?: number; vxlanPort?: number };
}

export interface ClusterInformation {
  metadata: Meta;
  spec?: { calicoVersion?: string };
}

/** One cycle's view of the datastore: one LIST per kind. */
export interface Observed {
  pods: Pod[];
  nodes: Node[];
  configMaps: ConfigMap[];
  ipPools: IPPool[];
  felixConfigurations: FelixConfiguration[];
  clusterInformations: ClusterInformation[];
  /** Injected faults (<LAB_STATE>/standin/faults.json), for tests that need a node that never converges. */
  faults?: Faults;
}

export interface Faults {
  /** Nodes whose allocate-tunnel-addrs is broken: they never get (or release) a tunnel address. */
  stuckTunnels?: string[];
}
