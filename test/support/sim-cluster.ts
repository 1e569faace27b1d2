// A simulated cluster for the planner and executor tests: writes apply at once, and converge() plays what
// calico-node does afterwards (tunnel addresses by the pools, the rollout to the ConfigMap's backend).

import type { Backend, EncapMode, FelixFlags } from "../../src/calico/shared/model.js";
import type {
  ClusterObservation,
  NodeObservation,
  Target,
} from "../../src/calico/shared/observation.js";
import type { Write } from "../../src/calico/plan/plan.js";
import { isTunnelOnly, tunnelPool } from "../../src/calico/shared/tunnel-pool.js";
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
/** The IPv6 pool's encapsulations Calico accepts (no IPIP on IPv6). */
export type Encap6 = "VXLAN Always" | "VXLAN CrossSubnet" | "none";
export const ENCAPS6: Encap6[] = ["VXLAN Always", "VXLAN CrossSubnet", "none"];
export const V6_POOL = "default-pool-ipv6";

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
  const v6 = obs.live.pools.filter((p) => p.ipVersion === 6 && !p.disabled);
  // A Tunnel-only pool's /24 gives node i its (i+1)th address, as allocate-tunnel-addrs would from /32 blocks.
  const tunnelPool = v4.find((p) => isTunnelOnly(p) && p.vxlanMode !== "Never");
  const ipipTunnelPool = v4.find((p) => isTunnelOnly(p) && p.ipipMode !== "Never");
  const nodes: NodeObservation[] = obs.nodes.map((n, i) => ({
    ...n,
    calicoNodeReady: true,
    tunnel: {
      ipip: ipipTunnelPool
        ? ipipTunnelPool.cidr.replace(/\.\d+\/\d+$/, `.${i + 1}`)
        : v4.some((p) => p.ipipMode !== "Never")
          ? `10.233.${64 + i}.0`
          : null,
      vxlan: tunnelPool
        ? tunnelPool.cidr.replace(/\.\d+\/\d+$/, `.${i + 1}`)
        : v4.some((p) => p.vxlanMode !== "Never")
          ? `10.233.${64 + i}.1`
          : null,
      vxlanV6: v6.some((p) => p.vxlanMode !== "Never") ? `fd85:ee78:d8a6:8607::1:${i + 1}` : null,
    },
  }));
  const backend = (obs.live.configMapBackend ?? "bird") as Backend;
  return {
    ...obs,
    nodes,
    rollout: {
      ...obs.rollout,
      templateBackend: backend,
      desired: 3,
      updated: 3,
      ready: 3,
      observed: true,
    },
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
  } else if (w.kind === "rollout") {
    const rollout = { ...obs.rollout, maxUnavailable: w.maxUnavailable };
    if (w.hold) rollout.heldMaxUnavailable = w.from;
    else delete rollout.heldMaxUnavailable;
    return { ...obs, live, rollout };
  } else if (w.kind === "tunnelPool") {
    live.pools = [...live.pools, tunnelPool(w.pool, w.cidr, w.nodeSelector, w.encap)];
  } else {
    live.configMapBackend = w.backend;
  }
  return { ...obs, live };
}

/** The IPv6 pool Kubespray creates for ipv6_stack, with these modes. */
export function pool6(e: Encap6) {
  return pool({
    name: V6_POOL,
    cidr: "fd85:ee78:d8a6:8607::1:0/112",
    ipVersion: 6,
    blockSize: 122,
    natOutgoing: false,
    ...modes(e),
  });
}

/** A converged cluster: one IPv4 pool, and an IPv6 pool when v6 is given. */
export function start(
  e: Encap,
  b: Backend,
  felix: "explicit" | "unset",
  version = "v3.32.1",
  v6?: Encap6,
): ClusterObservation {
  const m = modes(e);
  const felixDefault: FelixFlags =
    felix === "explicit"
      ? { ipipEnabled: m.ipipMode !== "Never", vxlanEnabled: m.vxlanMode !== "Never" }
      : {};
  const live = live218({
    pools: v6 === undefined ? [pool(m)] : [pool(m), pool6(v6)],
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
    // Kubespray's calico-node DaemonSet: updateStrategy RollingUpdate, maxUnavailable 20%.
    rollout: {
      templateBackend: b,
      desired: 3,
      updated: 3,
      ready: 3,
      observed: true,
      maxUnavailable: "20%",
    },
  });
}

export function target(e: Encap, b: Backend, v6?: Encap6): Target {
  const pools = [{ name: "default-pool", ...modes(e) }];
  if (v6 !== undefined) pools.push({ name: V6_POOL, ...modes(v6) });
  return { pools, backend: b };
}
