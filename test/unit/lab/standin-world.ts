// A tiny in-memory datastore for the stand-in's core: holds the objects, applies the core's actions as the
// apiserver would, and plays kube-controller-manager's DaemonSet controller (one pod per node from a template).

import type { Action, Options, State, StepResult } from "../../lab/standin/core.js";
import { DEFAULT_OPTIONS, initialState, step } from "../../lab/standin/core.js";
import type {
  Faults,
  ConfigMap,
  Container,
  FelixConfiguration,
  IPPool,
  Node,
  Observed,
  Pod,
} from "../../lab/standin/types.js";

export interface Profile {
  nodes?: number;
  backend?: "bird" | "vxlan";
  ipipMode?: string;
  vxlanMode?: string;
  blockSize?: number;
  felixDefault?: FelixConfiguration["spec"];
  calicoVersion?: string;
  /** Seed tunnel annotations as the lab's seed does (IPIP pool: IPIP address; VXLAN pool: VXLAN address + MAC). */
  seedAnnotations?: boolean;
  extraEnv?: { name: string; value: string }[];
}

export function template(
  backend: string,
  extraEnv: { name: string; value: string }[] = [],
): Container {
  return {
    name: "calico-node",
    image: "quay.io/calico/node:v3.32.1",
    env: [
      {
        name: "CALICO_NETWORKING_BACKEND",
        valueFrom: { configMapKeyRef: { name: "calico-config", key: "calico_backend" } },
      },
      ...(backend === "vxlan"
        ? [
            { name: "FELIX_VXLANVNI", value: "4096" },
            { name: "FELIX_VXLANPORT", value: "4789" },
          ]
        : []),
      ...extraEnv,
    ],
    readinessProbe: {
      exec: {
        command:
          backend === "bird"
            ? ["/bin/calico-node", "-bird-ready", "-felix-ready"]
            : ["/bin/calico-node", "-felix-ready"],
      },
    },
  };
}

export class World {
  now = 1_000_000;
  state: State = initialState();
  last!: StepResult;
  logs: string[] = [];
  nodes: Node[] = [];
  pods: Pod[] = [];
  configMaps: ConfigMap[] = [];
  ipPools: IPPool[] = [];
  felix: FelixConfiguration[] = [];
  version: string;
  template: Container;
  private seq = 0;
  opt: Options;

  constructor(p: Profile = {}, opt: Partial<Options> = {}) {
    this.opt = { ...DEFAULT_OPTIONS, ...opt };
    const n = p.nodes ?? 3;
    const backend = p.backend ?? "bird";
    const ipipMode = p.ipipMode ?? "Always";
    const vxlanMode = p.vxlanMode ?? "Never";
    const bs = p.blockSize ?? 24;
    this.version = p.calicoVersion ?? "v3.32.1";
    this.configMaps = [
      {
        metadata: { name: "calico-config", namespace: "kube-system" },
        data: { calico_backend: backend },
      },
    ];
    this.ipPools = [
      {
        metadata: { name: "default-pool" },
        spec: { cidr: "10.233.64.0/18", blockSize: bs, ipipMode, vxlanMode, nodeSelector: "all()" },
      },
    ];
    this.felix = [{ metadata: { name: "default" }, spec: p.felixDefault ?? { ipipEnabled: true } }];
    this.template = template(backend, p.extraEnv);
    for (let i = 1; i <= n; i++) {
      const annotations: Record<string, string> = {
        "projectcalico.org/IPv4Address": `172.31.250.${10 + i}/24`,
      };
      if (p.seedAnnotations !== false) {
        const off = (i - 1) * (1 << (32 - bs));
        const block = `10.233.${64 + Math.floor(off / 256)}.${off % 256}`;
        if (ipipMode !== "Never") annotations["projectcalico.org/IPv4IPIPTunnelAddr"] = block;
        else if (vxlanMode !== "Never") {
          annotations["projectcalico.org/IPv4VXLANTunnelAddr"] = block;
          annotations["projectcalico.org/VXLANTunnelMACAddr"] = `66:4c:61:62:04:0${i}`;
        }
      }
      this.nodes.push({
        metadata: {
          name: `node-${i}`,
          labels: { "kubernetes.io/hostname": `node-${i}` },
          annotations,
        },
        status: { addresses: [{ type: "InternalIP", address: `172.31.250.${10 + i}` }] },
      });
    }
    this.reconcileDaemonSet();
  }

  pool(): IPPool {
    const p = this.ipPools[0];
    if (!p) throw new Error("no pool");
    return p;
  }

  felixDefault(): NonNullable<FelixConfiguration["spec"]> {
    const f = this.felix.find((x) => x.metadata.name === "default");
    if (!f) throw new Error("no default");
    f.spec ??= {};
    return f.spec;
  }

  node(name: string): Node {
    const n = this.nodes.find((x) => x.metadata.name === name);
    if (!n) throw new Error(name);
    return n;
  }

  ann(name: string, key: string): string | undefined {
    return this.node(name).metadata.annotations?.[key];
  }

  /** kube-controller-manager: one pod per node from the current template (RollingUpdate, maxSurge 0). */
  reconcileDaemonSet(): void {
    for (const n of this.nodes) {
      if (this.pods.some((p) => p.spec.nodeName === n.metadata.name)) continue;
      const id = ++this.seq;
      this.pods.push({
        metadata: {
          name: `calico-node-${id}`,
          namespace: "kube-system",
          uid: `uid-${id}`,
          labels: { "k8s-app": "calico-node" },
        },
        spec: { nodeName: n.metadata.name, containers: [structuredClone(this.template)] },
        status: { phase: "Pending" },
      });
    }
  }

  /** A rollout or `kubectl delete pod`: every calico-node pod gets a deletionTimestamp. */
  restartPods(): void {
    for (const p of this.pods) p.metadata.deletionTimestamp ??= new Date(this.now).toISOString();
  }

  faults: Faults = {};

  observed(): Observed {
    return structuredClone({
      pods: this.pods,
      nodes: this.nodes,
      configMaps: this.configMaps,
      ipPools: this.ipPools,
      felixConfigurations: this.felix,
      clusterInformations: [
        { metadata: { name: "default" }, spec: { calicoVersion: this.version } },
      ],
      faults: this.faults,
    });
  }

  apply(a: Action): void {
    if (a.kind === "podStatus") {
      const p = this.pods.find((x) => x.metadata.uid === a.uid);
      if (p) p.status = a.status;
    } else if (a.kind === "deletePod") {
      this.pods = this.pods.filter((x) => x.metadata.uid !== a.uid);
    } else {
      const n = this.node(a.node);
      const ann = { ...(n.metadata.annotations ?? {}) };
      for (const [k, v] of Object.entries(a.annotations)) {
        if (v === null) delete ann[k];
        else ann[k] = v;
      }
      n.metadata.annotations = ann;
    }
  }

  /** One stand-in cycle, then the datastore applies its writes. */
  cycle(): StepResult {
    this.last = step(this.state, this.observed(), this.now, this.opt);
    this.state = this.last.state;
    this.logs.push(...this.last.logs);
    for (const a of this.last.actions) this.apply(a);
    this.reconcileDaemonSet();
    return this.last;
  }

  /** Runs cycles every `every` ms for `ms` ms. */
  run(ms: number, every = 250): StepResult {
    const end = this.now + ms;
    this.cycle();
    while (this.now < end) {
      this.now += every;
      this.cycle();
    }
    return this.last;
  }

  readyPods(): number {
    return this.pods.filter((p) =>
      p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
    ).length;
  }
}
