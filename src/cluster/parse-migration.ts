// Nodes and the calico-node DaemonSet into what the migration waits on (the calico-node pods: parse-lean.ts). Pure.

import { isAddress, parseCidr } from "../calico/shared/cidr.js";
import type { Backend } from "../calico/shared/model.js";
import type {
  KubeNode,
  NodeObservation,
  NodeRequirement,
  PodPlacement,
  RolloutObservation,
  Toleration,
  TunnelKind,
} from "../calico/shared/observation.js";
import type { MaxUnavailable } from "../calico/shared/model.js";
import { HELD_MAX_UNAVAILABLE, parseHeld } from "../calico/shared/rollout.js";
import type { Json } from "./decode.js";
import { field, isObject, str } from "./decode.js";

/** KDD keeps calico-node's per-node data as Kubernetes Node annotations (reference/calico.md). */
export const TUNNEL_ANNOTATIONS: Record<TunnelKind, string> = {
  ipip: "projectcalico.org/IPv4IPIPTunnelAddr",
  vxlan: "projectcalico.org/IPv4VXLANTunnelAddr",
  vxlanV6: "projectcalico.org/IPv6VXLANTunnelAddr",
};

/** calicoctl's Node spec fields for the same addresses (any datastore). */
const TUNNEL_SPEC: Record<TunnelKind, string[]> = {
  ipip: ["bgp", "ipv4IPIPTunnelAddr"],
  vxlan: ["ipv4VXLANTunnelAddr"],
  vxlanV6: ["ipv6VXLANTunnelAddr"],
};

function labels(obj: Json): Record<string, string> {
  const raw = field(obj, "metadata", "labels");
  return isObject(raw)
    ? Object.fromEntries(
        Object.entries(raw).filter((e): e is [string, string] => typeof e[1] === "string"),
      )
    : {};
}

/** A Kubernetes Node (kubectl) or a Calico Node (calicoctl), readiness not yet known. */
export function parseNode(obj: Json): Omit<NodeObservation, "calicoNodeReady"> {
  const name = str(field(obj, "metadata", "name")) ?? "";
  const calico = obj.apiVersion === "projectcalico.org/v3";
  const tunnel = Object.fromEntries(
    (Object.keys(TUNNEL_ANNOTATIONS) as TunnelKind[]).map((kind) => [
      kind,
      (calico
        ? str(field(obj, "spec", ...TUNNEL_SPEC[kind]))
        : str(field(obj, "metadata", "annotations", TUNNEL_ANNOTATIONS[kind]))) || null,
    ]),
  ) as Record<TunnelKind, string | null>;
  const refs = field(obj, "spec", "orchRefs");
  const k8sRef =
    calico && Array.isArray(refs)
      ? refs.filter(isObject).find((r) => r.orchestrator === "k8s")
      : undefined;
  const kubeNodeName = str(field(k8sRef, "nodeName"));
  return {
    name,
    labels: labels(obj),
    tunnel,
    ...(kubeNodeName ? { kubeNodeName } : {}),
    addresses: nodeAddresses(obj, calico),
    subnets: nodeSubnets(obj, calico),
  };
}

/**
 * The subnets of a node's own addresses, with their prefix length as calico-node wrote them: a Calico Node's
 * spec.bgp.ipv4Address / ipv6Address, or its projectcalico.org/IPv4Address / IPv6Address annotation on the Kubernetes
 * Node. A host prefix (/32, /128) says nothing of the subnet and is left out.
 */
function nodeSubnets(obj: Json, calico: boolean): string[] {
  const found = calico
    ? [field(obj, "spec", "bgp", "ipv4Address"), field(obj, "spec", "bgp", "ipv6Address")]
    : [
        field(obj, "metadata", "annotations", "projectcalico.org/IPv4Address"),
        field(obj, "metadata", "annotations", "projectcalico.org/IPv6Address"),
      ];
  return found.flatMap((a) => {
    const text = str(a)?.trim() ?? "";
    const cidr = parseCidr(text);
    return cidr &&
      isAddress(text.split("/")[0] ?? "") &&
      cidr.prefix < (cidr.version === 4 ? 32 : 128)
      ? [text]
      : [];
  });
}

/**
 * A node's own addresses, without their prefix length: a Calico Node's spec.bgp.ipv4Address / ipv6Address and
 * spec.addresses, a Kubernetes Node's status.addresses and calico-node's projectcalico.org/IPv4Address annotation.
 */
function nodeAddresses(obj: Json, calico: boolean): string[] {
  const listed = (list: unknown): unknown[] =>
    Array.isArray(list) ? list.filter(isObject).map((a) => a.address) : [];
  const found = calico
    ? [
        field(obj, "spec", "bgp", "ipv4Address"),
        field(obj, "spec", "bgp", "ipv6Address"),
        ...listed(field(obj, "spec", "addresses")),
      ]
    : [
        ...listed(field(obj, "status", "addresses")),
        field(obj, "metadata", "annotations", "projectcalico.org/IPv4Address"),
        field(obj, "metadata", "annotations", "projectcalico.org/IPv6Address"),
      ];
  const addresses = found.map((a) => str(a)?.split("/")[0] ?? "").filter(isAddress);
  return [...new Set(addresses)];
}

const text = (v: unknown): string => (typeof v === "string" ? v : "");
const objects = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** A Kubernetes Node's name, labels and taints. */
export function parseKubeNode(obj: Json): KubeNode {
  return {
    name: str(field(obj, "metadata", "name")) ?? "",
    labels: labels(obj),
    taints: objects(field(obj, "spec", "taints")).map((t) => ({
      key: text(t.key),
      value: text(t.value),
      effect: text(t.effect),
    })),
  };
}

function requirements(list: unknown, isField: boolean): NodeRequirement[] {
  return objects(list).map((r) => ({
    field: isField,
    key: text(r.key),
    operator: text(r.operator),
    values: Array.isArray(r.values) ? r.values.map(text) : [],
  }));
}

/** Where the DaemonSet's pod template may run; null without a DaemonSet. */
export function parsePlacement(daemonSet: Json | undefined): PodPlacement | null {
  const spec = field(daemonSet, "spec", "template", "spec");
  if (!isObject(spec)) return null;
  const selector = isObject(spec.nodeSelector) ? spec.nodeSelector : {};
  const terms = field(
    spec,
    "affinity",
    "nodeAffinity",
    "requiredDuringSchedulingIgnoredDuringExecution",
    "nodeSelectorTerms",
  );
  return {
    nodeSelector: Object.fromEntries(Object.entries(selector).map(([k, v]) => [k, text(v)])),
    tolerations: objects(spec.tolerations).map((t): Toleration => ({
      key: text(t.key),
      operator: text(t.operator),
      value: text(t.value),
      effect: text(t.effect),
    })),
    requiredTerms: Array.isArray(terms)
      ? objects(terms).map((t) => [
          ...requirements(t.matchExpressions, false),
          ...requirements(t.matchFields, true),
        ])
      : null,
    hostNetwork: spec.hostNetwork === true,
  };
}

function container(obj: Json | undefined): Json | undefined {
  const list = field(obj, "spec", "template", "spec", "containers");
  const containers = Array.isArray(list) ? list.filter(isObject) : [];
  return containers.find((c) => c.name === "calico-node") ?? containers[0];
}

/** The backend a pod template is rendered for, as Kubespray's calico-node template renders it. */
export function templateBackend(daemonSet: Json | undefined): Backend | null {
  const c = container(daemonSet);
  if (!c) return null;
  const probe = field(c, "readinessProbe", "exec", "command");
  if (Array.isArray(probe) && probe.includes("-bird-ready")) return "bird";
  const env = Array.isArray(c.env) ? c.env.filter(isObject) : [];
  if (env.some((e) => e.name === "FELIX_VXLANVNI")) return "vxlan";
  return "none";
}

export function parseRollout(daemonSet: Json | undefined): RolloutObservation {
  const num = (...path: string[]): number => {
    const v = field(daemonSet, ...path);
    return typeof v === "number" ? v : 0;
  };
  return {
    templateBackend: templateBackend(daemonSet),
    desired: num("status", "desiredNumberScheduled"),
    updated: num("status", "updatedNumberScheduled"),
    ready: num("status", "numberReady"),
    observed: num("status", "observedGeneration") >= num("metadata", "generation"),
    ...maxUnavailableOf(daemonSet),
  };
}

/** The DaemonSet's maxUnavailable (when it rolls) and the one a migration keeps in its annotation. */
function maxUnavailableOf(
  daemonSet: Json | undefined,
): Pick<RolloutObservation, "maxUnavailable" | "heldMaxUnavailable"> {
  const out: Pick<RolloutObservation, "maxUnavailable" | "heldMaxUnavailable"> = {};
  const type = field(daemonSet, "spec", "updateStrategy", "type");
  if (daemonSet && (type === undefined || type === "RollingUpdate")) {
    const v = field(daemonSet, "spec", "updateStrategy", "rollingUpdate", "maxUnavailable");
    out.maxUnavailable = typeof v === "number" || typeof v === "string" ? v : null;
  }
  const held = heldMaxUnavailableOf(daemonSet);
  if (held !== undefined) out.heldMaxUnavailable = held;
  return out;
}

/** The maxUnavailable a migration keeps in the DaemonSet's annotation; undefined without a readable one. */
export function heldMaxUnavailableOf(daemonSet: Json | undefined): MaxUnavailable | undefined {
  const held = field(daemonSet, "metadata", "annotations", HELD_MAX_UNAVAILABLE);
  return typeof held === "string" ? parseHeld(held) : undefined;
}
