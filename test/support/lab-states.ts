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
