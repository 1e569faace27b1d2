// The calico-node stand-in's pure core: (previous state, one cycle's datastore view, now) -> (next state, actions,
// data plane, status). No I/O, no clock. Every rule cites its fact in ../shared/reference/calico.md ("C: section")
// or ../shared/reference/kubespray-calico.md ("K: section"). Implemented independently of src/calico on purpose:
// the stand-in is the referee the product is tested against, so shared code would hide shared bugs.

import { createHash } from "node:crypto";
import type { DataplaneSpec, NodeDataplane, RouteSpec } from "../dataplane/spec.js";
import type { NodesSummary } from "../kubelet/status.js";
import type { IpNet } from "./ip.js";
import { contains, formatCidr, formatIp, nthBlock, parseCidr, parseIp } from "./ip.js";
import type { Selector } from "./selector.js";
import { parseSelector, selects } from "./selector.js";
import type { ConfigMap, FelixConfiguration, Node, Observed, Pod } from "./types.js";

export const ANN = {
  ipv4: "projectcalico.org/IPv4Address",
  ipip: "projectcalico.org/IPv4IPIPTunnelAddr",
  vxlan: "projectcalico.org/IPv4VXLANTunnelAddr",
  vxlanMac: "projectcalico.org/VXLANTunnelMACAddr",
  vxlan6: "projectcalico.org/IPv6VXLANTunnelAddr",
  // Not named in the reference; the lab's seed (seed/node.yaml) writes it beside IPv6VXLANTunnelAddr.
  vxlanMac6: "projectcalico.org/VXLANTunnelMACAddrV6",
} as const;

export const NAMESPACE = "kube-system";
export const POD_LABEL = { key: "k8s-app", value: "calico-node" } as const;

export interface Options {
  /** Felix's start-up time: felix-ready fails and nothing is programmed for this long after a (re)start. */
  felixStartMs: number;
  /** BIRD's peering delay: a BGP session is up this long after the later of its two ends started BIRD. */
  birdPeerMs: number;
  /** Re-send a pod DELETE that has not taken effect after this long. */
  deleteRetryMs: number;
  /** The data plane covers the first N nodes (by node number). */
  dataplaneNodes: number;
}

export const DEFAULT_OPTIONS: Options = {
  felixStartMs: 1000,
  birdPeerMs: 1500,
  deleteRetryMs: 5000,
  dataplaneNodes: 3,
};

export interface Encap {
  ipip: boolean;
  vxlan: boolean;
  vxlanV6: boolean;
}

export type Source = "env" | `node.${string}` | "default" | "pools" | "unset (pre-3.23: false)";

/** One calico-node container's life: what it read at start and what Felix and BIRD do inside it. */
export interface PodRun {
  uid: string;
  name: string;
  node: string;
  startedAt: number;
  /** CALICO_NETWORKING_BACKEND as read when the pod started. */
  backend: string;
  /** FELIX_IPINIPENABLED / FELIX_VXLANENABLED as read when the pod started (undefined: not set). */
  felixEnv: { ipip?: boolean; vxlan?: boolean };
  /** The readiness probe's checks (-felix-ready, -bird-ready), as in the pod spec. */
  readinessChecks: string[];
  bird: boolean;
  felixStartedAt: number;
  /** Felix's effective encapsulation since its last (re)start. */
  felix: Encap;
  felixSource: { ipip: Source; vxlan: Source };
  felixRestarts: number;
}

export interface VxlanRoute {
  kind: "vxlan";
  block: string;
  remoteNode: string;
  remoteTunnelAddress: string;
  remoteMac: string;
  remoteUnderlayAddress: string;
}

/** What Felix last programmed on a node; it stays in the kernel while Felix is down or restarting. */
export interface Programmed {
  vxlanDevice: { tunnelAddress: string; mac: string } | null;
  vxlanRoutes: VxlanRoute[];
}

export interface State {
  runs: Map<string, PodRun>;
  programmed: Map<string, Programmed>;
  /** Pod uid -> when we last sent its DELETE. */
  deleting: Map<string, number>;
  podStarts: Map<string, number>;
}

export function initialState(): State {
  return { runs: new Map(), programmed: new Map(), deleting: new Map(), podStarts: new Map() };
}

export type Action =
  | {
      kind: "podStatus";
      namespace: string;
      name: string;
      uid: string;
      status: Record<string, unknown>;
    }
  | { kind: "deletePod"; namespace: string; name: string; uid: string }
  | { kind: "nodeAnnotations"; node: string; annotations: Record<string, string | null> };

export interface NodeStatus {
  pod: string | null;
  podReady: boolean;
  backend: string | null;
  birdRunning: boolean;
  birdReady: boolean;
  felixReady: boolean;
  felixIpip: boolean | null;
  felixVxlan: boolean | null;
  felixVxlanV6: boolean | null;
  felixSource: { ipip: Source; vxlan: Source } | null;
  ipipTunnelAddr: string | null;
  vxlanTunnelAddr: string | null;
  vxlanTunnelMac: string | null;
  ipv6VxlanTunnelAddr: string | null;
  vxlanDevice: boolean;
  felixRestarts: number;
  podStarts: number;
  /** Only for data-plane nodes (routes towards the other data-plane nodes). */
  routes?: { vxlan: number; bgp: number };
}

export interface Status {
  calicoVersion: string | null;
  felixLegacyDefaults: boolean;
  summary: NodesSummary;
  nodes: Record<string, NodeStatus>;
  warnings: string[];
}

export interface StepResult {
  state: State;
  actions: Action[];
  logs: string[];
  dataplane: DataplaneSpec;
  status: Status;
}

// ---- normalised inputs -------------------------------------------------------------------------------------

type Mode = "Always" | "CrossSubnet" | "Never";

interface Pool {
  name: string;
  net: IpNet;
  blockSize: number;
  ipipMode: Mode;
  vxlanMode: Mode;
  disabled: boolean;
  selector: Selector;
  tunnel: boolean;
  workload: boolean;
}

interface NodeInfo {
  name: string;
  ordinal: number;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  ip: string | null;
}

function mode(m: string | undefined): Mode {
  // C: IPPool "ipipMode and vxlanMode (Always | CrossSubnet | Never; empty means Never)".
  return m === "Always" || m === "CrossSubnet" ? m : "Never";
}

function normalisePools(obs: Observed, warnings: string[]): Pool[] {
  const pools: Pool[] = [];
  for (const p of obs.ipPools) {
    const net = parseCidr(p.spec.cidr);
    if (!net) {
      warnings.push(`IPPool ${p.metadata.name}: cannot parse cidr '${p.spec.cidr}'`);
      continue;
    }
    const selector = parseSelector(p.spec.nodeSelector);
    if (!selector.ok)
      warnings.push(`IPPool ${p.metadata.name}: ${selector.error}; it selects no node here`);
    // C: IPPool "allowedUses ... default [Workload, Tunnel]"; "blockSize (default 26 IPv4, 122 IPv6)".
    const uses =
      p.spec.allowedUses && p.spec.allowedUses.length > 0
        ? p.spec.allowedUses
        : ["Workload", "Tunnel"];
    pools.push({
      name: p.metadata.name,
      net,
      blockSize: p.spec.blockSize ?? (net.v6 ? 122 : 26),
      ipipMode: mode(p.spec.ipipMode),
      vxlanMode: mode(p.spec.vxlanMode),
      disabled: p.spec.disabled === true,
      selector,
      tunnel: uses.includes("Tunnel"),
      workload: uses.includes("Workload"),
    });
  }
  return pools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Node i (`<anything>-<i>`) owns the (i-1)-th block of each pool, as the lab's seed lays them out. */
function normaliseNodes(nodes: Node[]): NodeInfo[] {
  const numbered: NodeInfo[] = [];
  const other: NodeInfo[] = [];
  for (const n of nodes) {
    const ann = n.metadata.annotations ?? {};
    let ip: string | null = null;
    const a = ann[ANN.ipv4];
    if (a) ip = a.split("/")[0] ?? null;
    if (!ip) {
      ip =
        n.status?.addresses?.find((x) => x.type === "InternalIP" && !x.address.includes(":"))
          ?.address ?? null;
    }
    const m = /-(\d+)$/.exec(n.metadata.name);
    const info: NodeInfo = {
      name: n.metadata.name,
      ordinal: m?.[1] ? Number(m[1]) - 1 : -1,
      labels: n.metadata.labels ?? {},
      annotations: ann,
      ip,
    };
    (m ? numbered : other).push(info);
  }
  numbered.sort((a, b) => a.ordinal - b.ordinal || (a.name < b.name ? -1 : 1));
  other.sort((a, b) => (a.name < b.name ? -1 : 1));
  let next = numbered.length > 0 ? (numbered[numbered.length - 1]?.ordinal ?? 0) + 1 : 0;
  for (const o of other) o.ordinal = next++;
  return [...numbered, ...other];
}

function parseBool(v: string): boolean | undefined {
  const s = v.trim().toLowerCase();
  if (["true", "1", "yes", "y", "t"].includes(s)) return true;
  if (["false", "0", "no", "n", "f"].includes(s)) return false;
  return undefined;
}

/** The container's environment as the kubelet resolves it when the container starts (literal or configMapKeyRef). */
function resolveEnv(
  pod: Pod,
  cms: Map<string, ConfigMap>,
  warnings: string[],
): Map<string, string> {
  const c = pod.spec.containers.find((x) => x.name === "calico-node") ?? pod.spec.containers[0];
  const env = new Map<string, string>();
  for (const e of c?.env ?? []) {
    if (e.value !== undefined) env.set(e.name, e.value);
    else if (e.valueFrom?.configMapKeyRef) {
      const ref = e.valueFrom.configMapKeyRef;
      const v = cms.get(ref.name)?.data?.[ref.key];
      if (v !== undefined) env.set(e.name, v);
      else if (!ref.optional) {
        warnings.push(
          `pod ${pod.metadata.name}: ${e.name} from ConfigMap ${ref.name}/${ref.key}: missing`,
        );
      }
    }
  }
  return env;
}

function envFlag(env: Map<string, string>, name: string): boolean | undefined {
  // C: FelixConfiguration "environment (FELIX_<PARAM>, case-insensitive, e.g. FELIX_IPINIPENABLED, ...)".
  for (const [k, v] of env) if (k.toUpperCase() === name) return parseBool(v);
  return undefined;
}

function isLegacy(version: string | null): boolean {
  const m = /^v?(\d+)\.(\d+)/.exec(version ?? "");
  if (!m) return false;
  const major = Number(m[1]);
  const minor = Number(m[2]);
  return major < 3 || (major === 3 && minor < 23);
}

// ---- the rules -----------------------------------------------------------------------------------------------

/**
 * Felix's effective IPIP/VXLAN (C: FelixConfiguration, "Precedence, highest first: environment ..., config file,
 * node.<name>, default" and "Calico >= 3.23 ...: when a flag is unset, Felix derives it from the pools (IPIP on if
 * any pool's ipipMode != Never; VXLAN likewise for IPv4). Calico <= 3.22: plain bools, default false").
 * IPv6 VXLAN: "No IPv6 override: IPv6 VXLAN follows the IPv6 pools." No config file is modelled.
 */
export function effectiveEncap(
  felixEnv: { ipip?: boolean; vxlan?: boolean },
  nodeName: string,
  felixConfigs: Map<string, FelixConfiguration>,
  pools: { net: { v6: boolean }; ipipMode: Mode; vxlanMode: Mode }[],
  legacy: boolean,
): { encap: Encap; source: { ipip: Source; vxlan: Source } } {
  const perNode = felixConfigs.get(`node.${nodeName}`)?.spec;
  const dflt = felixConfigs.get("default")?.spec;
  const pick = (
    env: boolean | undefined,
    key: "ipipEnabled" | "vxlanEnabled",
    derived: () => boolean,
  ): [boolean, Source] => {
    if (env !== undefined) return [env, "env"];
    const n = perNode?.[key];
    if (typeof n === "boolean") return [n, `node.${nodeName}`];
    const d = dflt?.[key];
    if (typeof d === "boolean") return [d, "default"];
    if (legacy) return [false, "unset (pre-3.23: false)"];
    return [derived(), "pools"];
  };
  const [ipip, ipipSrc] = pick(felixEnv.ipip, "ipipEnabled", () =>
    pools.some((p) => p.ipipMode !== "Never"),
  );
  const [vxlan, vxlanSrc] = pick(felixEnv.vxlan, "vxlanEnabled", () =>
    pools.some((p) => !p.net.v6 && p.vxlanMode !== "Never"),
  );
  const vxlanV6 = pools.some((p) => p.net.v6 && p.vxlanMode !== "Never");
  return { encap: { ipip, vxlan, vxlanV6 }, source: { ipip: ipipSrc, vxlan: vxlanSrc } };
}

type TunnelKind = "ipip" | "vxlan" | "vxlanV6";

/**
 * allocate-tunnel-addrs' pool choice (C: Tunnel addresses and devices, "pools that allow Tunnel use, select the
 * node, are not disabled, and have the matching mode (Always or CrossSubnet)"). IPIP only on IPv4 pools
 * (C: IPPool, "IPIP is not supported on an IPv6 IP pool").
 */
function tunnelPools(pools: Pool[], node: NodeInfo, kind: TunnelKind): Pool[] {
  return pools.filter((p) => {
    if (!p.tunnel || p.disabled || !selects(p.selector, node.labels)) return false;
    if (kind === "ipip") return !p.net.v6 && p.ipipMode !== "Never";
    if (kind === "vxlan") return !p.net.v6 && p.vxlanMode !== "Never";
    return p.net.v6 && p.vxlanMode !== "Never";
  });
}

/** A stable, locally administered, unicast MAC per node (first octet 0x66: bit 1 set, bit 0 clear). */
export function stableMac(node: string, v6 = false): string {
  const h = createHash("sha256")
    .update(`${v6 ? "v6:" : ""}${node}`)
    .digest();
  const b = [0x66, 0x4c, h[0] ?? 0, h[1] ?? 0, h[2] ?? 0, h[3] ?? 0];
  return b.map((x) => x.toString(16).padStart(2, "0")).join(":");
}

const MAC_RE = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i;

/**
 * The annotation changes allocate-tunnel-addrs makes on one node (C: Tunnel addresses and devices: "If any exist
 * it ensures an address from them; otherwise it removes the address and releases it"; stored as the KDD
 * annotations listed there). An existing address inside an eligible pool is kept; a new one is the first address
 * of the node's block in the first eligible pool (by name).
 */
export function tunnelAnnotations(
  pools: Pool[],
  node: NodeInfo,
  warnings: string[],
): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  const kinds: [TunnelKind, string, string | null][] = [
    ["ipip", ANN.ipip, null],
    ["vxlan", ANN.vxlan, ANN.vxlanMac],
    ["vxlanV6", ANN.vxlan6, ANN.vxlanMac6],
  ];
  for (const [kind, key, macKey] of kinds) {
    const eligible = tunnelPools(pools, node, kind);
    const current = node.annotations[key];
    let want: string | null = null;
    if (eligible.length > 0) {
      const ip = current ? parseIp(current) : null;
      if (current && ip && eligible.some((p) => contains(p.net, ip))) want = current;
      else {
        for (const p of eligible) {
          const block = nthBlock(p.net, p.blockSize, node.ordinal);
          if (block) {
            want = formatIp(block.v6, block.base);
            break;
          }
        }
        if (want === null)
          warnings.push(`node ${node.name}: no free ${kind} tunnel block in the eligible pools`);
      }
    }
    if (want === null && eligible.length > 0) want = current ?? null; // nothing to allocate from: leave as is
    if ((current ?? null) !== want) out[key] = want;
    if (macKey) {
      const mac = node.annotations[macKey];
      if (want === null) {
        if (mac !== undefined) out[macKey] = null;
      } else if (!mac || !MAC_RE.test(mac)) {
        out[macKey] = stableMac(node.name, kind === "vxlanV6");
      }
    }
  }
  return out;
}

function blockOf(pool: Pool, node: NodeInfo): string | null {
  const b = nthBlock(pool.net, pool.blockSize, node.ordinal);
  return b ? formatCidr(b) : null;
}

function iso(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

function isCalicoNodePod(p: Pod): boolean {
  return (
    (p.metadata.namespace ?? NAMESPACE) === NAMESPACE &&
    p.metadata.labels?.[POD_LABEL.key] === POD_LABEL.value
  );
}

// ---- one cycle -------------------------------------------------------------------------------------------

export function step(
  prev: State,
  obs: Observed,
  now: number,
  opt: Options = DEFAULT_OPTIONS,
): StepResult {
  const logs: string[] = [];
  const warnings: string[] = [];
  const actions: Action[] = [];
  const state: State = {
    runs: new Map(prev.runs),
    programmed: new Map(prev.programmed),
    deleting: new Map(),
    podStarts: new Map(prev.podStarts),
  };

  const cms = new Map<string, ConfigMap>();
  for (const c of obs.configMaps) {
    if ((c.metadata.namespace ?? NAMESPACE) === NAMESPACE) cms.set(c.metadata.name, c);
  }
  const pools = normalisePools(obs, warnings);
  const felixConfigs = new Map(obs.felixConfigurations.map((f) => [f.metadata.name, f]));
  const calicoVersion =
    obs.clusterInformations.find((c) => c.metadata.name === "default")?.spec?.calicoVersion ?? null;
  // C: FelixConfiguration, "Calico <= 3.22: plain bools, default false" (the pre-3.23 profile).
  const legacy = isLegacy(calicoVersion);
  const nodes = normaliseNodes(obs.nodes);
  const nodeByName = new Map(nodes.map((n) => [n.name, n]));

  // -- pods: start, stop, finalise (K: "calico-node reads CALICO_NETWORKING_BACKEND from it only when a pod starts")
  const seen = new Set<string>();
  const podByUid = new Map<string, Pod>();
  for (const pod of obs.pods) {
    if (!isCalicoNodePod(pod)) continue;
    const uid = pod.metadata.uid ?? `${pod.metadata.namespace ?? NAMESPACE}/${pod.metadata.name}`;
    podByUid.set(uid, pod);
    if (pod.metadata.deletionTimestamp) {
      // Playing kubelet: a terminating pod is stopped, then its deletion is finalised with grace period 0.
      const run = state.runs.get(uid);
      if (run) {
        logs.push(`${run.node}: calico-node ${run.name} stopped (pod terminating)`);
        state.runs.delete(uid);
      }
      const sent = prev.deleting.get(uid);
      if (sent === undefined || now - sent >= opt.deleteRetryMs) {
        actions.push({ kind: "deletePod", namespace: NAMESPACE, name: pod.metadata.name, uid });
        state.deleting.set(uid, now);
      } else state.deleting.set(uid, sent);
      continue;
    }
    const nodeName = pod.spec.nodeName;
    if (!nodeName) continue; // not bound yet
    seen.add(uid);
    if (state.runs.has(uid)) continue;
    const env = resolveEnv(pod, cms, warnings);
    // C: Tunnel addresses and devices, "CALICO_NETWORKING_BACKEND values: bird, vxlan, none"; calico-node's own
    // default when unset is bird (K: "calico_network_backend | unset (templates default to bird)").
    const backend = (env.get("CALICO_NETWORKING_BACKEND") ?? "bird").trim().toLowerCase();
    const container =
      pod.spec.containers.find((x) => x.name === "calico-node") ?? pod.spec.containers[0];
    const command = container?.readinessProbe?.exec?.command;
    const felixEnv = {
      ipip: envFlag(env, "FELIX_IPINIPENABLED"),
      vxlan: envFlag(env, "FELIX_VXLANENABLED"),
    };
    const eff = effectiveEncap(felixEnv, nodeName, felixConfigs, pools, legacy);
    const run: PodRun = {
      uid,
      name: pod.metadata.name,
      node: nodeName,
      startedAt: now,
      backend,
      felixEnv,
      readinessChecks: (command ?? []).filter((a) => a.startsWith("-")),
      // K: "a VXLAN-only cluster can run calico_backend: vxlan (BIRD and confd off)" / C: "an IPIP pool needs
      // calico_backend: bird": BIRD runs only in a pod started with backend bird.
      bird: backend === "bird",
      felixStartedAt: now,
      felix: eff.encap,
      felixSource: eff.source,
      felixRestarts: 0,
    };
    state.runs.set(uid, run);
    state.podStarts.set(nodeName, (state.podStarts.get(nodeName) ?? 0) + 1);
    logs.push(
      `${nodeName}: calico-node ${run.name} started: backend ${backend}, BIRD ${run.bird ? "on" : "off"}, ` +
        `Felix ipip=${eff.encap.ipip} (${eff.source.ipip}) vxlan=${eff.encap.vxlan} (${eff.source.vxlan})`,
    );
  }
  for (const [uid, run] of state.runs) {
    if (!seen.has(uid)) {
      logs.push(`${run.node}: calico-node ${run.name} gone`);
      state.runs.delete(uid);
    }
  }

  // The running calico-node per node (a DaemonSet has at most one; the latest start wins otherwise).
  const active = new Map<string, PodRun>();
  for (const run of state.runs.values()) {
    const cur = active.get(run.node);
    if (!cur || run.startedAt > cur.startedAt) active.set(run.node, run);
  }

  // -- Felix restarts (C: FelixConfiguration, "When the effective encapsulation changes, Felix logs 'IPIP and/or
  // VXLAN encapsulation changed, need to restart.' and restarts inside calico-node (a short gap ...)").
  for (const [nodeName, run] of active) {
    const eff = effectiveEncap(run.felixEnv, nodeName, felixConfigs, pools, legacy);
    const f = run.felix;
    if (
      eff.encap.ipip !== f.ipip ||
      eff.encap.vxlan !== f.vxlan ||
      eff.encap.vxlanV6 !== f.vxlanV6
    ) {
      const next: PodRun = {
        ...run,
        felix: eff.encap,
        felixSource: eff.source,
        felixStartedAt: now,
        felixRestarts: run.felixRestarts + 1,
      };
      state.runs.set(run.uid, next);
      active.set(nodeName, next);
      logs.push(
        `${nodeName}: Felix: IPIP and/or VXLAN encapsulation changed, need to restart. ` +
          `(ipip ${f.ipip}->${eff.encap.ipip} [${eff.source.ipip}], vxlan ${f.vxlan}->${eff.encap.vxlan} ` +
          `[${eff.source.vxlan}], vxlanV6 ${f.vxlanV6}->${eff.encap.vxlanV6})`,
      );
    } else if (
      eff.source.ipip !== run.felixSource.ipip ||
      eff.source.vxlan !== run.felixSource.vxlan
    ) {
      const next = { ...run, felixSource: eff.source };
      state.runs.set(run.uid, next);
      active.set(nodeName, next);
    }
  }

  // -- allocate-tunnel-addrs, only while the node's calico-node runs (C: Tunnel addresses and devices).
  const stuck = new Set(obs.faults?.stuckTunnels ?? []);
  for (const nodeName of active.keys()) {
    const node = nodeByName.get(nodeName);
    if (!node) continue;
    // Fault injection: this node's allocator is broken (a test's node that never converges).
    if (stuck.has(nodeName)) continue;
    const change = tunnelAnnotations(pools, node, warnings);
    if (Object.keys(change).length > 0) {
      actions.push({ kind: "nodeAnnotations", node: nodeName, annotations: change });
      for (const [k, v] of Object.entries(change)) {
        logs.push(`${nodeName}: ${v === null ? `released ${k}` : `${k}=${v}`}`);
      }
    }
  }

  // -- readiness (the pod's own probe: -felix-ready, -bird-ready; K: "The DaemonSet adds -bird-live/-bird-ready
  // probes only for bird"). bird-ready: BIRD runs and has peered with every other node running BIRD.
  let lastBirdStart = -Infinity;
  for (const run of active.values())
    if (run.bird) lastBirdStart = Math.max(lastBirdStart, run.startedAt);
  const felixReady = (r: PodRun): boolean => now >= r.felixStartedAt + opt.felixStartMs;
  const birdReady = (r: PodRun): boolean => r.bird && now >= lastBirdStart + opt.birdPeerMs;
  const podReady = (r: PodRun): boolean =>
    r.readinessChecks.every((c) =>
      c === "-felix-ready" ? felixReady(r) : c === "-bird-ready" ? birdReady(r) : true,
    );
  for (const run of state.runs.values()) {
    const pod = podByUid.get(run.uid);
    if (!pod) continue;
    const node = nodeByName.get(run.node);
    const ready = active.get(run.node) === run && podReady(run);
    const cur = pod.status ?? {};
    const curReady = cur.conditions?.find((c) => c.type === "Ready")?.status === "True";
    const curCReady = cur.containerStatuses?.find((c) => c.name === "calico-node")?.ready === true;
    const ip = node?.ip ?? undefined;
    if (
      cur.phase === "Running" &&
      curReady === ready &&
      curCReady === ready &&
      (ip === undefined || (cur.podIP === ip && cur.hostIP === ip))
    ) {
      continue;
    }
    const t = iso(now);
    const container =
      pod.spec.containers.find((x) => x.name === "calico-node") ?? pod.spec.containers[0];
    const cond = (type: string, ok: boolean): Record<string, unknown> => ({
      type,
      status: ok ? "True" : "False",
      lastProbeTime: null,
      lastTransitionTime: t,
    });
    const status: Record<string, unknown> = {
      phase: "Running",
      startTime: iso(run.startedAt),
      conditions: [
        cond("PodScheduled", true),
        cond("Initialized", true),
        cond("ContainersReady", ready),
        cond("Ready", ready),
      ],
      containerStatuses: [
        {
          name: container?.name ?? "calico-node",
          image: container?.image ?? "",
          imageID: "",
          containerID: `standin://${run.uid}`,
          ready,
          started: true,
          restartCount: 0,
          state: { running: { startedAt: iso(run.startedAt) } },
        },
      ],
    };
    if (ip !== undefined) {
      Object.assign(status, { podIP: ip, podIPs: [{ ip }], hostIP: ip, hostIPs: [{ ip }] });
    }
    actions.push({ kind: "podStatus", namespace: NAMESPACE, name: run.name, uid: run.uid, status });
  }

  // -- the data plane. Data-plane nodes: the first N by node number.
  const dpNodes = nodes.filter((n) => n.ip !== null).slice(0, Math.max(0, opt.dataplaneNodes));
  const dpSet = new Set(dpNodes.map((n) => n.name));
  const vtep = (n: NodeInfo): { tunnelAddress: string; mac: string; ip: string } | null => {
    const a = n.annotations[ANN.vxlan];
    if (!a || !n.ip) return null;
    const mac = n.annotations[ANN.vxlanMac];
    return { tunnelAddress: a, mac: mac && MAC_RE.test(mac) ? mac : stableMac(n.name), ip: n.ip };
  };
  const workloadPools = (n: NodeInfo): Pool[] =>
    pools.filter((p) => !p.net.v6 && p.workload && selects(p.selector, n.labels));

  // Felix's programming: recomputed only while Felix is up; frozen while it starts or restarts, and while no
  // calico-node runs (nothing removes what it left in the kernel).
  for (const [nodeName, run] of active) {
    const node = nodeByName.get(nodeName);
    if (!node || !felixReady(run)) continue;
    // C: "Felix creates vxlan.calico only when VXLAN is effectively enabled at start and the node has a VXLAN
    // tunnel address and node IP (its VTEP) ... Disabling VXLAN deletes the device."
    const own = vtep(node);
    const device =
      run.felix.vxlan && own ? { tunnelAddress: own.tunnelAddress, mac: own.mac } : null;
    const routes: VxlanRoute[] = [];
    if (device && dpSet.has(nodeName)) {
      // C: "Remote VXLAN routes appear only for nodes that have VTEPs"; "Felix programs VXLAN routes itself"
      // (for the blocks of VXLAN pools; IPIP pools' blocks are BIRD's).
      for (const r of dpNodes) {
        if (r.name === nodeName) continue;
        const rv = vtep(r);
        if (!rv) continue;
        for (const p of workloadPools(r)) {
          if (p.vxlanMode === "Never") continue;
          const block = blockOf(p, r);
          if (!block) continue;
          routes.push({
            kind: "vxlan",
            block,
            remoteNode: r.name,
            remoteTunnelAddress: rv.tunnelAddress,
            remoteMac: rv.mac,
            remoteUnderlayAddress: rv.ip,
          });
        }
      }
    }
    state.programmed.set(nodeName, { vxlanDevice: device, vxlanRoutes: routes });
  }
  for (const name of state.programmed.keys())
    if (!nodeByName.has(name)) state.programmed.delete(name);

  // BIRD's routes (C: "IPIP routes are distributed by BIRD (BGP)"): on node A towards node B's block of an IPIP
  // pool, only while BIRD runs on both and their session is up (birdPeerMs after the later start), and only when
  // Felix's IPIP is effectively on at both ends (A encapsulates into tunl0, B decapsulates from it; the lab
  // stands in a plain route for tunl0). BIRD does not pause while Felix restarts.
  //
  // A pool with neither IPIP nor VXLAN is routed by BIRD as plain routes (Calico's unencapsulated BGP mode; the
  // reference names only the IPIP case, this is the judgement the planner also makes): BIRD on both ends is
  // enough, Felix's IPIP does not matter.
  const bgpRoutes = (a: PodRun): RouteSpec[] => {
    const out: RouteSpec[] = [];
    if (!a.bird) return out;
    for (const r of dpNodes) {
      if (r.name === a.node || !r.ip) continue;
      const b = active.get(r.name);
      if (!b?.bird) continue;
      if (now < Math.max(a.startedAt, b.startedAt) + opt.birdPeerMs) continue;
      for (const p of workloadPools(r)) {
        const plain = p.ipipMode === "Never" && p.vxlanMode === "Never";
        if (!plain && (p.ipipMode === "Never" || !a.felix.ipip || !b.felix.ipip)) continue;
        const block = blockOf(p, r);
        if (block)
          out.push({ kind: "bgp", block, remoteNode: r.name, remoteUnderlayAddress: r.ip });
      }
    }
    return out;
  };

  const vni = felixConfigs.get("default")?.spec?.vxlanVNI ?? 4096;
  const port = felixConfigs.get("default")?.spec?.vxlanPort ?? 4789;
  const dataplane: DataplaneSpec = { vxlan: { vni, port }, nodes: [] };
  const routeCounts = new Map<string, { vxlan: number; bgp: number }>();
  for (const n of dpNodes) {
    const own = workloadPools(n).find(
      (p) => !p.disabled && nthBlock(p.net, p.blockSize, n.ordinal),
    );
    const block = own ? nthBlock(own.net, own.blockSize, n.ordinal) : null;
    if (!block || !n.ip) continue;
    const prog = state.programmed.get(n.name);
    const run = active.get(n.name);
    const bgp = run ? bgpRoutes(run) : [];
    const entry: NodeDataplane = {
      name: n.name,
      underlayAddress: n.ip,
      podAddresses: [formatIp(block.v6, block.base + 1n)],
      block: formatCidr(block),
      vxlanDevice: prog?.vxlanDevice ?? null,
      routes: [...(prog?.vxlanRoutes ?? []), ...bgp],
    };
    routeCounts.set(n.name, { vxlan: prog?.vxlanRoutes.length ?? 0, bgp: bgp.length });
    dataplane.nodes.push(entry);
  }

  // -- status
  const status: Status = {
    calicoVersion,
    felixLegacyDefaults: legacy,
    summary: {
      nodes: nodes.length,
      pods: active.size,
      podsReady: 0,
      birdRunning: 0,
      vxlanDevices: 0,
      ipipTunnelAddrs: 0,
      vxlanTunnelAddrs: 0,
    },
    nodes: {},
    warnings: [...new Set(warnings)],
  };
  for (const n of nodes) {
    const run = active.get(n.name);
    const prog = state.programmed.get(n.name);
    const ready = run ? podReady(run) : false;
    const ns: NodeStatus = {
      pod: run?.name ?? null,
      podReady: ready,
      backend: run?.backend ?? null,
      birdRunning: run?.bird ?? false,
      birdReady: run ? birdReady(run) : false,
      felixReady: run ? felixReady(run) : false,
      felixIpip: run?.felix.ipip ?? null,
      felixVxlan: run?.felix.vxlan ?? null,
      felixVxlanV6: run?.felix.vxlanV6 ?? null,
      felixSource: run?.felixSource ?? null,
      ipipTunnelAddr: n.annotations[ANN.ipip] ?? null,
      vxlanTunnelAddr: n.annotations[ANN.vxlan] ?? null,
      vxlanTunnelMac: n.annotations[ANN.vxlanMac] ?? null,
      ipv6VxlanTunnelAddr: n.annotations[ANN.vxlan6] ?? null,
      vxlanDevice: (prog?.vxlanDevice ?? null) !== null,
      felixRestarts: run?.felixRestarts ?? 0,
      podStarts: state.podStarts.get(n.name) ?? 0,
    };
    const rc = routeCounts.get(n.name);
    if (rc) ns.routes = rc;
    status.nodes[n.name] = ns;
    if (ready) status.summary.podsReady++;
    if (ns.birdRunning) status.summary.birdRunning++;
    if (ns.vxlanDevice) status.summary.vxlanDevices++;
    if (ns.ipipTunnelAddr) status.summary.ipipTunnelAddrs++;
    if (ns.vxlanTunnelAddr) status.summary.vxlanTunnelAddrs++;
  }
  return { state, actions, logs, dataplane, status };
}
