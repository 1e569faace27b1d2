// The seven states Calico can run that the lab tours visit (IPIP Always / CrossSubnet with bird; VXLAN Always /
// CrossSubnet with bird or vxlan; no encapsulation with bird), and one migration between them on the lab.

import type { TaskResult } from "./ansible.js";
import { runTask } from "./ansible.js";
import type { Lab } from "./lab.js";
import { migrateArgs } from "./lab.js";

export interface State {
  name: string;
  ipip_mode: string;
  vxlan_mode: string;
  network_backend: string;
}

export const STATES: State[] = [
  { name: "IPIP Always/bird", ipip_mode: "Always", vxlan_mode: "Never", network_backend: "bird" },
  {
    name: "IPIP CrossSubnet/bird",
    ipip_mode: "CrossSubnet",
    vxlan_mode: "Never",
    network_backend: "bird",
  },
  { name: "VXLAN Always/bird", ipip_mode: "Never", vxlan_mode: "Always", network_backend: "bird" },
  {
    name: "VXLAN Always/vxlan",
    ipip_mode: "Never",
    vxlan_mode: "Always",
    network_backend: "vxlan",
  },
  {
    name: "VXLAN CrossSubnet/bird",
    ipip_mode: "Never",
    vxlan_mode: "CrossSubnet",
    network_backend: "bird",
  },
  {
    name: "VXLAN CrossSubnet/vxlan",
    ipip_mode: "Never",
    vxlan_mode: "CrossSubnet",
    network_backend: "vxlan",
  },
  { name: "none/bird", ipip_mode: "Never", vxlan_mode: "Never", network_backend: "bird" },
];

/** A state whose pool BIRD routes (IPIP or unencapsulated), not Felix (VXLAN). */
export const birdRouted = (s: State): boolean => s.vxlan_mode === "Never";

/** The pool's routes move between Felix (VXLAN) and BIRD (IPIP or unencapsulated). */
export const ownerChanges = (from: State, to: State): boolean =>
  birdRouted(from) !== birdRouted(to);

/** The classes of transition the tours cover; each has its own way of losing packets, or of losing none. */
export type TransitionClass =
  | "into VXLAN"
  | "out of VXLAN"
  | "among BIRD states"
  | "backend switch under VXLAN"
  | "Always <-> CrossSubnet under VXLAN";

/** The class of one transition between two different states. */
export function transitionClass(from: State, to: State): TransitionClass {
  if (ownerChanges(from, to)) return birdRouted(from) ? "into VXLAN" : "out of VXLAN";
  if (birdRouted(from)) return "among BIRD states";
  return from.vxlan_mode !== to.vxlan_mode
    ? "Always <-> CrossSubnet under VXLAN"
    : "backend switch under VXLAN";
}

export const TRANSITION_CLASSES: TransitionClass[] = [
  "into VXLAN",
  "out of VXLAN",
  "among BIRD states",
  "backend switch under VXLAN",
  "Always <-> CrossSubnet under VXLAN",
];

/** The state of that name; an unknown name is a typo in a test, not a state. */
export function state(name: string): State {
  const s = STATES.find((x) => x.name === name);
  if (!s)
    throw new Error(`no lab state '${name}' (one of: ${STATES.map((x) => x.name).join(", ")})`);
  return s;
}

/**
 * The quick tier's walk (make test): from the lab's start state, one transition of each class, each chosen to keep
 * a lossy mechanism covered that the other lab tests do not already cover (real-calico-node.test.ts switches IPIP
 * Always/bird -> VXLAN Always/vxlan in place and with the tunnel pool, and back):
 * - among BIRD states: IPIP Always -> CrossSubnet (BIRD keeps its routes; 0 lost);
 * - into VXLAN in place without a calico-node roll (BIRD's withdrawal against every Felix's restart for its VTEP);
 * - Always -> CrossSubnet under VXLAN (Felix swaps a block's route between vxlan.calico and the NIC: the one host
 *   to remote pod probe per pair measured on 2026-11-30 was on this very transition);
 * - a backend switch under VXLAN (bird -> vxlan: calico-node rolls, Felix keeps the routes; 0 lost);
 * - out of VXLAN to no encapsulation with calico-node rolled back to bird on every node at once (BIRD's kernel scan
 *   racing Felix's deletes).
 */
export const QUICK_WALK: State[] = [
  "IPIP Always/bird",
  "IPIP CrossSubnet/bird",
  "VXLAN Always/bird",
  "VXLAN CrossSubnet/bird",
  "VXLAN CrossSubnet/vxlan",
  "none/bird",
].map(state);

/** calico_encap_migrate to a state through real Ansible, with the lab's datastore access and `extra` options. */
export async function migrateTo(
  lab: Lab,
  to: State,
  extra: Record<string, unknown> = {},
): Promise<TaskResult> {
  return (
    await runTask({
      calico_encap_migrate: {
        ...migrateArgs(lab),
        ipip_mode: to.ipip_mode,
        vxlan_mode: to.vxlan_mode,
        network_backend: to.network_backend,
        ...extra,
      },
    })
  ).result;
}
