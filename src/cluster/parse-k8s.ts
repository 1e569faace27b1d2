// Kubernetes objects into the model: ConfigMap kube-system/calico-config and the calico-node DaemonSet. Pure.

import { LAST_APPLIED } from "../calico/shared/kubespray-apply.js";
import type { KubesprayApplied, NodeEnv } from "../calico/shared/model.js";
import type { Json } from "./decode.js";
import { field, isObject, str } from "./decode.js";

export function backendFromConfigMap(configMap: Json | undefined): string | null {
  return str(field(configMap, "data", "calico_backend")) ?? null;
}

export function etcdEndpointsFromConfigMap(configMap: Json | undefined): string | null {
  return str(field(configMap, "data", "etcd_endpoints")) || null;
}

/** The calico-node container of the DaemonSet (the first container when none has that name). */
function calicoNodeContainer(daemonSet: Json): Json | undefined {
  const containers = field(daemonSet, "spec", "template", "spec", "containers");
  const list = Array.isArray(containers) ? containers.filter(isObject) : [];
  return list.find((c) => c.name === "calico-node") ?? list[0];
}

/** What Kubespray's last apply left: calico-node's env names in order and the last-applied annotations. */
export function kubesprayAppliedFrom(
  configMap: Json | undefined,
  daemonSet: Json | undefined,
): KubesprayApplied | undefined {
  if (!daemonSet) return undefined;
  const env = calicoNodeContainer(daemonSet)?.env;
  const envNames = (Array.isArray(env) ? env.filter(isObject) : []).map((e) => str(e.name) ?? "");
  const cm = str(field(configMap, "metadata", "annotations", LAST_APPLIED));
  const ds = str(field(daemonSet, "metadata", "annotations", LAST_APPLIED));
  return { envNames, ...(cm ? { configMap: cm } : {}), ...(ds ? { daemonSet: ds } : {}) };
}

/** The calico-node container's env: FELIX_IPINIPENABLED, FELIX_VXLANENABLED, CALICO_NETWORKING_BACKEND,
 *  DATASTORE_TYPE, ETCD_ENDPOINTS, FELIX_IPV6SUPPORT and IP6. */
export function nodeEnvFromDaemonSet(daemonSet: Json | undefined): NodeEnv | null {
  if (!daemonSet) return null;
  const container = calicoNodeContainer(daemonSet);
  const env = Array.isArray(container?.env) ? container.env.filter(isObject) : [];
  const result: NodeEnv = { backendFromConfigMap: false };
  for (const e of env) {
    const name = str(e.name)?.toUpperCase();
    const value = str(e.value);
    if (name === "FELIX_IPINIPENABLED" && value !== undefined) result.ipipEnabled = value;
    if (name === "FELIX_VXLANENABLED" && value !== undefined) result.vxlanEnabled = value;
    if (name === "DATASTORE_TYPE" && value !== undefined) result.datastoreType = value;
    if (name === "FELIX_IPV6SUPPORT" && value !== undefined) result.ipv6Support = value;
    if (name === "IP6" && value !== undefined) result.ip6 = value;
    if (name === "ETCD_ENDPOINTS") {
      const key = str(field(e, "valueFrom", "configMapKeyRef", "key"));
      if (value !== undefined) result.etcdEndpoints = value;
      else if (key !== undefined) result.etcdEndpoints = `calico-config ${key}`;
    }
    if (name === "CALICO_NETWORKING_BACKEND") {
      if (value !== undefined) result.networkingBackend = value;
      else if (field(e, "valueFrom", "configMapKeyRef", "key") === "calico_backend")
        result.backendFromConfigMap = true;
    }
  }
  return result;
}
