// Routes the kernel drops when a device loses its last IPv4 address, read from the lab's `ip monitor` logs, and
// the probes that may cost.
//
// Removing a device's last IPv4 address disables IPv4 on it: the kernel flushes every route through the device
// (and its neighbour entries) and sends no RTM_DELROUTE for those routes, so the monitor shows the address's
// deletion and nothing for the routes. Seen by hand on this machine's kernel: in a namespace, a veth with one /32
// and a route `via X dev tunx onlink proto 80`; after `ip addr del` of the address and `ip addr add` of another, the
// route was gone and the monitor had printed only the two local-table lines.
//
// Where it costs on the lab: a way into IPIP on Felix's path without an IPIP tunnel pool, as a rollback of a migration
// into VXLAN takes (waits.test). The pool's switch back to IPIP makes Felix route via tunl0 at once, from tunl0's
// old address (the IPIP tunnel address the node had before the migration, released in IPAM while the pool was VXLAN;
// an explicit ipipEnabled leaves it on tunl0, ../shared/reference/calico.md). calico-node's allocator then assigns
// the node a new IPIP tunnel address, Felix restarts for its changed tunnel address (real-calico-node.md) and makes
// the new address tunl0's only one, deleting the old first: every route via tunl0 on that node is gone until BIRD
// or the restarted Felix adds it again. Seen in the lab's kept logs (2026-12-06, Calico v3.31.0): a node's routes to
// its peers' blocks absent from the address's deletion to BIRD's re-add 0.5 to 10 ms later (the lab's BIRD adds
// them via the underlay, its stand-in for tunl0), and Felix's own 0.1 to 0.3 s later; each lost probe of those runs
// was sent in such a gap, on the pair's way.
//
// The lab's tunl0 adds a cost a real one has not (test/lab/README.md, "tunl0, a stand-in"): it is a veth, so a route
// via it needs the gateway's neighbour entry, which real IP-in-IP (NOARP) does not. The address's deletion flushes
// those entries too, and a route that Felix puts (back) on tunl0 carries nothing until ARP has resolved the gateway
// again: microseconds on a quiet lab, a second and more when the first request goes unanswered (ARP retries each
// second; seen on the lab at load 21 on 2 cores). The same holds at the pool's switch back to IPIP when the entries
// aged out while the routes were on vxlan.calico. Until the monitor shows the gateway's entry resolved, a route on
// tunl0 counts as gone here: a gap a real tunl0 would not have.

import type { ProberFigures } from "./lab.js";
import { labMonitorLogs, monitorTime, routeEvents, type RouteGap } from "./monitor-logs.js";
import { gapsExplain, PLACE_SLACK_MS, unexplainedOutages } from "./outages.js";

/**
 * A destination without a usable route on a node: from its device's last address's deletion, or from a route put on
 * the stand-in tunl0 before its gateway's entry was resolved, until a route through another device or through the
 * device with its gateway resolved.
 */
export type AddressFlush = RouteGap;

/** The lab's stand-in for the IP-in-IP device: a veth, whose routes need their gateway's neighbour entry. */
export const STANDIN = "tunl0";

/** How long after an address's deletion a destination's gap may end and still count (ARP gives up after 3 s). */
export const FLUSH_MAX_MS = 5000;

const STAMP = /^\[([0-9T:.-]+)\] /;
const ADDRESS = /^(Deleted )?local (\d+\.\d+\.\d+\.\d+) dev (\S+) table local /;
const NEIGHBOUR = /^(Deleted )?(\d+\.\d+\.\d+\.\d+) dev (\S+) (?:lladdr \S+ )?(\w+)\s*$/;
const RESOLVED = new Set(["REACHABLE", "STALE", "DELAY", "PROBE", "PERMANENT"]);

interface Route {
  device: string;
  gateway: string;
}

/**
 * The gaps of one node's monitor log (see AddressFlush): each destination routed through a device when the device's
 * last IPv4 address was deleted, and each route put on the stand-in tunl0 while its gateway's entry was not
 * resolved, until usable again within FLUSH_MAX_MS. A gap never closed is none: it explains nothing. A route an agent
 * deletes opens no gap (that is BIRD's or Felix's doing, for other rules to judge), but within a flush's gap.
 */
export function addressFlushes(node: string, log: string): AddressFlush[] {
  const out: AddressFlush[] = [];
  const routes = new Map<string, Route>();
  const addresses = new Map<string, Set<string>>();
  /** "device gateway" -> whether its neighbour entry is resolved now. */
  const neighbours = new Map<string, boolean>();
  /** Destination -> the flushed device and when its gap began. */
  const open = new Map<string, { device: string; since: number; flushedAt: number }>();
  const usable = (r: Route | undefined, device: string): boolean =>
    r !== undefined && (r.device !== device || neighbours.get(`${device} ${r.gateway}`) === true);
  const settle = (at: number): void => {
    for (const [destination, gap] of open) {
      if (at - gap.flushedAt > FLUSH_MAX_MS) {
        open.delete(destination);
        continue;
      }
      if (!usable(routes.get(destination), gap.device)) continue;
      if (gap.since >= 0) out.push({ node, destination, deletedAt: gap.since, addedAt: at });
      gap.since = -1; // usable: a later route on the device with its gateway unresolved opens the gap again
      if (routes.get(destination)?.device === gap.device) open.delete(destination);
    }
  };
  for (const line of log.split("\n")) {
    const stamp = STAMP.exec(line);
    if (!stamp?.[1]) continue;
    const at = monitorTime(stamp[1]);
    const rest = line.slice(stamp[0].length);
    const address = ADDRESS.exec(rest);
    if (address?.[2] && address[3]) {
      const device = address[3];
      const set = addresses.get(device) ?? new Set<string>();
      addresses.set(device, set);
      if (!address[1]) {
        set.add(address[2]);
        continue;
      }
      set.delete(address[2]);
      if (set.size > 0) continue;
      for (const [destination, r] of routes)
        if (r.device === device) {
          routes.delete(destination);
          open.set(destination, { device, since: at, flushedAt: at });
        }
      for (const key of neighbours.keys())
        if (key.startsWith(`${device} `)) neighbours.set(key, false);
      continue;
    }
    const neighbour = NEIGHBOUR.exec(rest);
    if (
      neighbour?.[2] &&
      neighbour[3] &&
      neighbour[4] &&
      /\blladdr\b|FAILED|INCOMPLETE/.test(rest)
    ) {
      neighbours.set(
        `${neighbour[3]} ${neighbour[2]}`,
        !neighbour[1] && RESOLVED.has(neighbour[4]),
      );
      settle(at);
      continue;
    }
    const [e] = routeEvents(line);
    if (!e || e.family !== "ipv4") continue;
    if (e.deleted) routes.delete(e.destination);
    else
      routes.set(e.destination, {
        device: /\bdev (\S+)/.exec(e.rest)?.[1] ?? "",
        gateway: /\bvia (\S+)/.exec(e.rest)?.[1] ?? e.destination,
      });
    const gap = open.get(e.destination);
    if (gap && gap.since < 0 && !usable(routes.get(e.destination), gap.device)) gap.since = at;
    else if (!gap && !e.deleted && !usable(routes.get(e.destination), STANDIN))
      open.set(e.destination, { device: STANDIN, since: at, flushedAt: at });
    settle(at);
  }
  return out;
}

/** The lab's nodes' address flushes, from every <state>/log/monitor-<node>.log. */
export function labAddressFlushes(state: string): AddressFlush[] {
  return labMonitorLogs(state).flatMap(({ node, log }) => addressFlushes(node, log));
}

/**
 * The lost probes that no address flush explains: an IPv4 outage is explained when flushed routes on the pair's way
 * (onPairsWay) were gone within PLACE_SLACK_MS of it and their measured absence can lose that many probes at the
 * pair's rate (gapsExplain). `complete` is false when the prober's outages do not account for every lost probe.
 */
export function unexplainedByFlushes(
  p: ProberFigures,
  flushes: readonly AddressFlush[],
): { outages: string[]; explained: number; complete: boolean } {
  return unexplainedOutages(
    p.pairs,
    (o) => o.family !== "ipv6" && gapsExplain(o, flushes, PLACE_SLACK_MS),
  );
}
