// The pool switch, defined once: for one pool's modes before and after a write, which encapsulation it moves into,
// and whether that is a switch between IPIP and VXLAN. Pure.
//
// Two notions, named apart because their callers need them apart:
//  - entering (turnsOn, encapEntered): an encapsulation's mode is off before and on after, whatever the pool had
//    (Never -> VXLAN counts). A tunnel pool serves that: the nodes need their tunnel addresses of the encapsulation
//    when the pool turns it on, from an unencapsulated pool as from an IPIP one (tunnel-pool.ts, vteps.ts).
//  - switching (switchedInto): one encapsulation on before and the other on after (IPIP -> VXLAN, VXLAN -> IPIP). The
//    IPIP routes change hands between BIRD and Felix there (cluster-routes.ts), and stop_before: pool_switch stops
//    before that write (fallback-routes.ts); Never -> VXLAN is no such switch, nor is Always -> CrossSubnet.
// Calico rejects a pool with both modes on, so of the pools a cluster can hold a switch into an encapsulation is
// also an entering of it; the two differ only for a pool that was unencapsulated (it enters, and switches nothing).

import type { Encapsulation } from "./felix.js";
import type { EncapMode } from "./model.js";
import { isOn } from "./model.js";

/** A pool's two encapsulation modes: an IPPool's, a target pool's, or a pool write's before or after. */
export interface PoolModes {
  ipipMode: EncapMode;
  vxlanMode: EncapMode;
}

const MODE = { ipip: "ipipMode", vxlan: "vxlanMode" } as const satisfies Record<
  Encapsulation,
  keyof PoolModes
>;

/** Whether the pool enters `encap`: its mode is off before and on after. */
export function turnsOn(before: PoolModes, after: PoolModes, encap: Encapsulation): boolean {
  return !isOn(before[MODE[encap]]) && isOn(after[MODE[encap]]);
}

/**
 * The encapsulation the pool enters (its mode turns on), VXLAN first, whatever it had before (Never -> VXLAN
 * counts); null when none turns on.
 */
export function encapEntered(before: PoolModes, after: PoolModes): Encapsulation | null {
  return turnsOn(before, after, "vxlan") ? "vxlan" : turnsOn(before, after, "ipip") ? "ipip" : null;
}

/**
 * The encapsulation the pool switches into between IPIP and VXLAN: the other one on before and this one on after;
 * null when the change is no such switch (Never -> VXLAN, Always -> CrossSubnet, none).
 */
export function switchedInto(before: PoolModes, after: PoolModes): Encapsulation | null {
  if (isOn(before.ipipMode) && isOn(after.vxlanMode)) return "vxlan";
  if (isOn(before.vxlanMode) && isOn(after.ipipMode)) return "ipip";
  return null;
}
