// The data plane's pure half: what a node namespace holds (parsed from `ip -json` and `bridge -json`), and the
// `ip -batch` and `bridge -batch` lines that make it match one NodeDataplane. No I/O here; apply.ts runs it.
//
// What the lab owns in a node namespace, and so may add or remove:
// - IPv4 addresses on lo other than 127.0.0.0/8 (the pod addresses, /32 each);
// - the device vxlan.calico, its addresses, its neighbours and its FDB entries;
// - routes in the main table with protocol 80 (Felix's VXLAN routes) or 81 (BIRD's routes).
// Anything else (eth0, the underlay address, kernel routes) is left alone.

import type { DataplaneSpec, NodeDataplane } from "./spec.js";

export const VXLAN_DEVICE = "vxlan.calico";
export const UNDERLAY_DEVICE = "eth0";
/** Route protocol numbers marking the lab's routes: "felix" (VXLAN) and "bird" (BGP). */
export const PROTO_FELIX = 80;
export const PROTO_BIRD = 81;

export interface ObservedVxlan {
  vni: number | null;
  port: number | null;
  dev: string | null;
  learning: boolean | null;
  mac: string;
  up: boolean;
  /** CIDRs, e.g. 10.233.64.0/32. */
  addresses: string[];
}

export interface ObservedRoute {
  dst: string;
  gateway: string | null;
  dev: string | null;
  prefsrc: string | null;
  protocol: number;
  onlink: boolean;
}

export interface ObservedNode {
  /** Pod addresses found on lo (IPv4, not 127/8), as CIDRs. */
  loAddresses: string[];
  vxlan: ObservedVxlan | null;
  /** Neighbours on vxlan.calico. */
  neighbours: { dst: string; lladdr: string | null; permanent: boolean }[];
  /** FDB entries on vxlan.calico that have a remote (dst). */
  fdb: { mac: string; dst: string }[];
  /** Routes in the main table (all protocols; the plan touches only 80 and 81). */
  routes: ObservedRoute[];
}

export interface NodePlan {
  /** Lines for `ip -batch -`. */
  ip: string[];
  /** Lines for `bridge -batch -`, run after the ip lines. */
  bridge: string[];
}

// ---- parsing -------------------------------------------------------------------------------

interface IpAddrInfo {
  family?: string;
  local?: string;
  prefixlen?: number;
}
interface IpLink {
  ifname?: string;
  flags?: string[];
  address?: string;
  linkinfo?: {
    info_kind?: string;
    info_data?: { id?: number; port?: number; link?: string; learning?: boolean };
  };
  addr_info?: IpAddrInfo[];
}
interface IpNeigh {
  dst?: string;
  dev?: string;
  lladdr?: string;
  state?: string[];
}
interface IpRoute {
  dst?: string;
  gateway?: string;
  dev?: string;
  prefsrc?: string;
  protocol?: string | number;
  flags?: string[];
}
interface BridgeFdb {
  mac?: string;
  ifname?: string;
  dst?: string;
}

/** Splits the output of `ip -json -batch -` (one JSON document per line and command). */
export function splitJsonLines(stdout: string): unknown[] {
  return stdout
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as unknown);
}

const PROTOCOL_NAMES: Record<string, number> = {
  unspec: 0,
  redirect: 1,
  kernel: 2,
  boot: 3,
  static: 4,
};

function protocolNumber(p: string | number | undefined): number {
  if (typeof p === "number") return p;
  if (p === undefined) return 0;
  if (/^\d+$/.test(p)) return Number(p);
  return PROTOCOL_NAMES[p] ?? -1;
}

export function withLen(addr: string, len = 32): string {
  return addr.includes("/") ? addr : `${addr}/${len}`;
}

export function bare(addr: string): string {
  return addr.split("/")[0] ?? addr;
}

/** Builds the observed state from `ip -d -j addr show`, `ip -j neigh show`, `ip -j route show table main` and
 *  `bridge -j fdb show`. */
export function parseObserved(
  addr: unknown,
  neigh: unknown,
  route: unknown,
  fdb: unknown,
): ObservedNode {
  const links = (addr ?? []) as IpLink[];
  const inet = (l: IpLink | undefined): string[] =>
    (l?.addr_info ?? [])
      .filter((a) => a.family === "inet" && a.local !== undefined)
      .map((a) => `${a.local}/${a.prefixlen ?? 32}`);
  const lo = links.find((l) => l.ifname === "lo");
  const vx = links.find((l) => l.ifname === VXLAN_DEVICE);
  const data = vx?.linkinfo?.info_data;
  const vxlan: ObservedVxlan | null = vx
    ? {
        vni: vx.linkinfo?.info_kind === "vxlan" ? (data?.id ?? null) : null,
        port: data?.port ?? null,
        dev: data?.link ?? null,
        learning: data?.learning ?? null,
        mac: (vx.address ?? "").toLowerCase(),
        up: (vx.flags ?? []).includes("UP"),
        addresses: inet(vx),
      }
    : null;
  return {
    loAddresses: inet(lo).filter((a) => !a.startsWith("127.")),
    vxlan,
    neighbours: ((neigh ?? []) as IpNeigh[])
      .filter((n) => n.dev === VXLAN_DEVICE && n.dst !== undefined)
      .map((n) => ({
        dst: n.dst as string,
        lladdr: n.lladdr?.toLowerCase() ?? null,
        permanent: (n.state ?? []).includes("PERMANENT"),
      })),
    fdb: ((fdb ?? []) as BridgeFdb[])
      .filter((f) => f.ifname === VXLAN_DEVICE && f.mac !== undefined && f.dst !== undefined)
      .map((f) => ({ mac: (f.mac as string).toLowerCase(), dst: f.dst as string })),
    routes: ((route ?? []) as IpRoute[])
      .filter((r) => r.dst !== undefined)
      .map((r) => ({
        dst: r.dst === "default" ? "0.0.0.0/0" : withLen(r.dst as string),
        gateway: r.gateway ?? null,
        dev: r.dev ?? null,
        prefsrc: r.prefsrc ?? null,
        protocol: protocolNumber(r.protocol),
        onlink: (r.flags ?? []).includes("onlink"),
      })),
  };
}

// ---- planning ------------------------------------------------------------------------------

interface DesiredRoute {
  dst: string;
  gateway: string;
  dev: string;
  prefsrc: string | null;
  protocol: number;
  onlink: boolean;
}

/** Contract checks the plan relies on; throws naming the node and the problem. */
export function validateSpec(spec: DataplaneSpec): void {
  const names = new Set<string>();
  for (const n of spec.nodes) {
    if (names.has(n.name)) throw new Error(`DataplaneSpec: node ${n.name} appears twice`);
    names.add(n.name);
    const blocks = new Set<string>();
    for (const r of n.routes) {
      if (blocks.has(r.block))
        throw new Error(`DataplaneSpec: node ${n.name} has two routes to ${r.block}`);
      blocks.add(r.block);
      if (r.kind === "vxlan" && n.vxlanDevice === null)
        throw new Error(
          `DataplaneSpec: node ${n.name} has a vxlan route to ${r.block} but no vxlanDevice`,
        );
    }
  }
}

function desiredRoutes(node: NodeDataplane): DesiredRoute[] {
  const podSrc = node.podAddresses[0] !== undefined ? bare(node.podAddresses[0]) : null;
  const tunnel = node.vxlanDevice ? bare(node.vxlanDevice.tunnelAddress) : null;
  return node.routes.map((r) =>
    r.kind === "vxlan"
      ? {
          dst: withLen(r.block),
          gateway: bare(r.remoteTunnelAddress),
          dev: VXLAN_DEVICE,
          prefsrc: tunnel,
          protocol: PROTO_FELIX,
          onlink: true,
        }
      : {
          dst: withLen(r.block),
          gateway: bare(r.remoteUnderlayAddress),
          dev: UNDERLAY_DEVICE,
          // A pod address as source, so that unbound sockets on the node answer from an address the remote
          // node routes back here (BIRD's tunl0 address plays this part in a real cluster).
          prefsrc: podSrc ?? tunnel,
          protocol: PROTO_BIRD,
          onlink: false,
        },
  );
}

function routeLine(verb: "replace", r: DesiredRoute): string {
  return [
    `route ${verb} ${r.dst} via ${r.gateway} dev ${r.dev}`,
    r.onlink ? " onlink" : "",
    r.prefsrc ? ` src ${r.prefsrc}` : "",
    ` proto ${r.protocol}`,
  ].join("");
}

function sameRoute(o: ObservedRoute, d: DesiredRoute): boolean {
  return (
    o.gateway === d.gateway &&
    o.dev === d.dev &&
    o.prefsrc === d.prefsrc &&
    o.protocol === d.protocol &&
    o.onlink === d.onlink
  );
}

/** The commands that make one namespace match `node` (empty when it already does). */
export function planNode(
  node: NodeDataplane,
  vxlan: DataplaneSpec["vxlan"],
  obs: ObservedNode,
): NodePlan {
  const ip: string[] = [];
  const bridge: string[] = [];
  const want = node.vxlanDevice;

  // vxlan.calico: recreated when its VNI, port, parent or learning differ; deleted when not wanted.
  let vx = obs.vxlan;
  if (
    vx &&
    (!want ||
      vx.vni !== vxlan.vni ||
      vx.port !== vxlan.port ||
      vx.dev !== UNDERLAY_DEVICE ||
      vx.learning !== false)
  ) {
    ip.push(`link del ${VXLAN_DEVICE}`);
    vx = null;
  }

  // Pod addresses on lo.
  const wantLo = new Set(node.podAddresses.map((a) => withLen(bare(a))));
  for (const a of obs.loAddresses) if (!wantLo.has(a)) ip.push(`address del ${a} dev lo`);
  const haveLo = new Set(obs.loAddresses);
  for (const a of wantLo) if (!haveLo.has(a)) ip.push(`address add ${a} dev lo`);

  if (want) {
    const mac = want.mac.toLowerCase();
    if (!vx) {
      ip.push(
        `link add ${VXLAN_DEVICE} address ${mac} type vxlan id ${vxlan.vni} dstport ${vxlan.port} dev ${UNDERLAY_DEVICE} nolearning`,
      );
    } else if (vx.mac !== mac) {
      ip.push(`link set dev ${VXLAN_DEVICE} address ${mac}`);
    }
    const tunnel = withLen(bare(want.tunnelAddress));
    const have = vx?.addresses ?? [];
    for (const a of have) if (a !== tunnel) ip.push(`address del ${a} dev ${VXLAN_DEVICE}`);
    if (!have.includes(tunnel)) ip.push(`address add ${tunnel} dev ${VXLAN_DEVICE}`);
    if (!vx?.up) ip.push(`link set dev ${VXLAN_DEVICE} up`);

    // Neighbours (remote tunnel address -> remote MAC) and FDB (remote MAC -> remote underlay address).
    const neigh = new Map<string, string>();
    const fdb = new Map<string, string>();
    for (const r of node.routes) {
      if (r.kind !== "vxlan") continue;
      neigh.set(bare(r.remoteTunnelAddress), r.remoteMac.toLowerCase());
      fdb.set(r.remoteMac.toLowerCase(), bare(r.remoteUnderlayAddress));
    }
    const haveNeigh = vx ? obs.neighbours : [];
    for (const n of haveNeigh)
      if (!neigh.has(n.dst)) ip.push(`neigh del ${n.dst} dev ${VXLAN_DEVICE}`);
    for (const [dst, mac] of neigh) {
      const h = haveNeigh.find((n) => n.dst === dst);
      if (!h || h.lladdr !== mac || !h.permanent)
        ip.push(`neigh replace ${dst} lladdr ${mac} dev ${VXLAN_DEVICE} nud permanent`);
    }
    const haveFdb = vx ? obs.fdb : [];
    for (const f of haveFdb)
      if (fdb.get(f.mac) !== f.dst)
        bridge.push(`fdb del ${f.mac} dev ${VXLAN_DEVICE} dst ${f.dst} self`);
    for (const [mac, dst] of fdb)
      if (!haveFdb.some((f) => f.mac === mac && f.dst === dst))
        bridge.push(`fdb append ${mac} dev ${VXLAN_DEVICE} dst ${dst} self permanent`);
  }

  // Routes: ours carry protocol 80 or 81; others are never touched.
  // The kernel drops routes through a deleted vxlan.calico and routes whose source address was deleted, so
  // those count as gone (deleting them again would fail the batch; wanted ones are programmed again).
  const deletedSrc = new Set(
    ip.filter((l) => l.startsWith("address del ")).map((l) => bare(l.split(" ")[2] ?? "")),
  );
  const vxlanDeleted = obs.vxlan !== null && vx === null;
  const gone = (o: ObservedRoute): boolean =>
    (vxlanDeleted && o.dev === VXLAN_DEVICE) || (o.prefsrc !== null && deletedSrc.has(o.prefsrc));
  const desired = desiredRoutes(node);
  const wanted = new Map(desired.map((d) => [d.dst, d]));
  const ours = (p: number): boolean => p === PROTO_FELIX || p === PROTO_BIRD;
  for (const o of obs.routes) {
    if (!ours(o.protocol) || wanted.has(o.dst) || gone(o)) continue;
    ip.push(`route del ${o.dst} proto ${o.protocol}`);
  }
  for (const d of desired) {
    const o = obs.routes.find((r) => r.dst === d.dst && !gone(r));
    if (!o || !sameRoute(o, d)) ip.push(routeLine("replace", d));
  }
  return { ip, bridge };
}
