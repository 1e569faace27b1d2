// What calicoctl and kubectl print for a given cluster, in the shapes of reference/calico.md
// (projectcalico.org/v3 lists from calicoctl; a v1 List from kubectl). Used to feed the command stand-ins.

import type { FelixFlags, Live, Pool } from "../../src/calico/shared/model.js";
import type { Script } from "./fake-commands.js";
import {
  calicoctlAnswer,
  KUBECTL_CALICO_CRDS,
  KUBECTL_KUBESPRAY_OBJECTS,
} from "./fake-commands.js";

function v3Pool(p: Pool): object {
  return {
    kind: "IPPool",
    apiVersion: "projectcalico.org/v3",
    metadata: { name: p.name, resourceVersion: "1000" },
    spec: {
      cidr: p.cidr,
      vxlanMode: p.vxlanMode,
      ipipMode: p.ipipMode,
      natOutgoing: p.natOutgoing,
      blockSize: p.blockSize,
      nodeSelector: p.nodeSelector,
      allowedUses: p.allowedUses,
      ...(p.disabled ? { disabled: true } : {}),
    },
  };
}

function felix(name: string, flags: FelixFlags, apiVersion: string): object {
  return {
    kind: "FelixConfiguration",
    apiVersion,
    metadata: { name },
    spec: { ...flags, bpfLogLevel: "" },
  };
}

function felixObjects(live: Live, apiVersion: string): object[] {
  return [
    ...(live.felixDefault ? [felix("default", live.felixDefault, apiVersion)] : []),
    ...Object.entries(live.felixNodes).map(([n, f]) => felix(`node.${n}`, f, apiVersion)),
  ];
}

function clusterInformation(live: Live, apiVersion: string): object {
  return {
    kind: "ClusterInformation",
    apiVersion,
    metadata: { name: "default" },
    spec: { calicoVersion: live.calicoVersion, clusterType: "kubespray,bgp", datastoreReady: true },
  };
}

function kubesprayObjects(live: Live): string {
  const items: object[] = [];
  if (live.configMapBackend !== null)
    items.push({
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { name: "calico-config", namespace: "kube-system" },
      data: {
        calico_backend: live.configMapBackend,
        cluster_type: "kubespray,bgp",
        ...(live.configMapEtcdEndpoints ? { etcd_endpoints: live.configMapEtcdEndpoints } : {}),
      },
    });
  if (live.nodeEnv) {
    const env: object[] = [];
    if (live.nodeEnv.backendFromConfigMap)
      env.push({
        name: "CALICO_NETWORKING_BACKEND",
        valueFrom: { configMapKeyRef: { name: "calico-config", key: "calico_backend" } },
      });
    const n = live.nodeEnv;
    const literal: [string, string | undefined][] = [
      ["CALICO_NETWORKING_BACKEND", n.networkingBackend],
      ["FELIX_IPINIPENABLED", n.ipipEnabled],
      ["FELIX_VXLANENABLED", n.vxlanEnabled],
      ["DATASTORE_TYPE", n.datastoreType],
      ["ETCD_ENDPOINTS", n.etcdEndpoints],
      ["FELIX_IPV6SUPPORT", n.ipv6Support],
      ["IP6", n.ip6],
    ];
    for (const [name, value] of literal) if (value) env.push({ name, value });
    items.push({
      kind: "DaemonSet",
      apiVersion: "apps/v1",
      metadata: { name: "calico-node", namespace: "kube-system" },
      spec: { template: { spec: { containers: [{ name: "calico-node", env }] } } },
    });
  }
  return JSON.stringify({
    apiVersion: "v1",
    kind: "List",
    items,
    metadata: { resourceVersion: "" },
  });
}

export function calicoctlScript(live: Live): Script {
  const list = (kind: string, objs: object[]) => ({
    kind,
    apiVersion: "projectcalico.org/v3",
    metadata: { resourceVersion: "1000" },
    items: objs,
  });
  // calicoctl prints the lists of its request as one JSON array (read-calicoctl.ts).
  return calicoctlAnswer({
    stdout: JSON.stringify(
      [
        list("IPPoolList", live.pools.map(v3Pool)),
        list("FelixConfigurationList", felixObjects(live, "projectcalico.org/v3")),
        list("ClusterInformationList", [clusterInformation(live, "projectcalico.org/v3")]),
      ],
      null,
      2,
    ),
  });
}

export function kubectlScript(live: Live, kubeconfig: string): Script {
  const crdItems = [
    ...live.pools.map((p) => ({ ...v3Pool(p), apiVersion: "crd.projectcalico.org/v1" })),
    ...felixObjects(live, "crd.projectcalico.org/v1"),
    clusterInformation(live, "crd.projectcalico.org/v1"),
  ];
  return {
    [`--kubeconfig ${kubeconfig} ${KUBECTL_CALICO_CRDS}`]: {
      stdout: JSON.stringify({ apiVersion: "v1", kind: "List", items: crdItems }),
    },
    [`--kubeconfig ${kubeconfig} ${KUBECTL_KUBESPRAY_OBJECTS}`]: { stdout: kubesprayObjects(live) },
  };
}
