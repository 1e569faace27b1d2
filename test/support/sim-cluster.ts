// A simulated cluster for the planner and executor tests: writes apply at once, and converge() plays what
// calico-node does afterwards (tunnel addresses by the pools, the rollout to the ConfigMap's backend).

import type { Backend, EncapMode, FelixFlags } from "../../src/calico/model.js";
import type { ClusterObservation, NodeObservation, Target } from "../../src/calico/observation.js";
import type { Write } from "../../src/calico/plan.js";
import { live218, pool } from "./builders.js";

export type Encap =
  "IPIP Always" | "IPIP CrossSubnet" | "VXLAN Always" | "VXLAN CrossSubnet" | "none";
export const ENCAPS: Encap[] = [
  "IPIP Always",
  "IPIP CrossSubnet",
  "VXLAN Always",
  "VXLAN CrossSubnet",
  "none",
];
export const BACKENDS: Backend[] = ["bird", "vxlan"];

export function modes(e: Encap): { ipipMode: EncapMode; vxlanMode: EncapMode } {
  if (e === "none") return { ipipMode: "Never", vxlanMode: "Never" };
  const [kind, mode] = e.split(" ") as ["IPIP" | "VXLAN", EncapMode];
  return kind === "IPIP"
    ? { ipipMode: mode, vxlanMode: "Never" }
    : { ipipMode: "Never", vxlanMode: mode };
}

export const NODES = ["node-1", "node-2", "node-3"];

export function converge(obs: ClusterObservation): ClusterObservation {
  const v4 = obs.live.pools.filter((p) => p.ipVersion === 4 && !p.disabled);
  const nodes: NodeObservation[] = obs.nodes.map((n, i) => ({
    ...n,
    calicoNodeReady: true,
    tunnel: {
      ipip: v4.some((p) => p.ipipMode !== "Never") ? `10.233.${64 + i}.0` : null,
      vxlan: v4.some((p) => p.vxlanMode !== "Never") ? `10.233.${64 + i}.1` : null,
      vxlanV6: null,
    },
  }));
  const backend = (obs.live.configMapBackend ?? "bird") as Backend;
  return {
    ...obs,
    nodes,
    rollout: { templateBackend: backend, desired: 3, updated: 3, ready: 3, observed: true },
  };
}

export function applyWrite(obs: ClusterObservation, w: Write): ClusterObservation {
  const live = { ...obs.live };
  if (w.kind === "felix") {
    const next: Record<string, unknown> = { ...live.felixDefault };
    for (const [k, v] of Object.entries(w.set))
      if (v === null) delete next[k];
      else next[k] = v;
    live.felixDefault = next;
  } else if (w.kind === "pool") {
    live.pools = live.pools.map((p) => (p.name === w.pool ? { ...p, ...w.set } : p));
  } else {
    live.configMapBackend = w.backend;
  }
  return { ...obs, live };
}

export function start(
  e: Encap,
  b: Backend,
  felix: "explicit" | "unset",
  version = "v3.32.1",
): ClusterObservation {
  const m = modes(e);
  const felixDefault: FelixFlags =
    felix === "explicit"
      ? { ipipEnabled: m.ipipMode !== "Never", vxlanEnabled: m.vxlanMode !== "Never" }
      : {};
  const live = live218({
    pools: [pool(m)],
    configMapBackend: b,
    felixDefault,
    calicoVersion: version,
  });
  const nodes = NODES.map((name) => ({
    name,
    labels: { "kubernetes.io/hostname": name },
    tunnel: { ipip: null, vxlan: null, vxlanV6: null },
    calicoNodeReady: true,
  }));
  return converge({
    live,
    nodes,
    rollout: { templateBackend: b, desired: 3, updated: 3, ready: 3, observed: true },
  });
}

export function target(e: Encap, b: Backend): Target {
  return { pools: [{ name: "default-pool", ...modes(e) }], backend: b };
}
