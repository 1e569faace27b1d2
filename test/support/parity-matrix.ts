// The per-release parity matrix (issue 51): on a lab state, for each Kubespray release and inventory, Kubespray's own
// Calico check (as its kubernetes/preinstall role includes it) beside this project's preflight (as README places it in
// a fork), both held to what the release's own Calico role would write with that inventory (the settings play:
// rendered by Ansible from the release's tree, independent of the role calico_encap). The preflight must pass exactly
// where the role would write what the cluster has: a block there is a false block, a pass elsewhere a miss.
// kubespray-seed.test runs it on the seed's Calico, kubespray-lines.test on every line.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import type { Lab } from "./lab.js";
import { calicoBackend, calicoctl, everyResourceVersion } from "./lab.js";
import {
  KUBESPRAY_ANSIBLE,
  kubesprayTree,
  parseSettings,
  runKubespray,
  type KubesprayCalicoSettings,
  type KubesprayRelease,
} from "./kubespray.js";

/** The pool pinned to IP-in-IP, the backend left to the release's default: the seed's break. */
export const POOL_PINNED = { calico_ipip_mode: "Always", calico_vxlan_mode: "Never" };
/** The #8691 reporter's workaround inventory: datastore, the probes' timeouts, IPIP, BIRD; no block size. */
export const WORKAROUND_8691 = {
  calico_datastore: "kdd",
  calico_node_livenessprobe_timeout: 10,
  calico_node_readinessprobe_timeout: 10,
  calico_ipip_mode: "Always",
  calico_vxlan_mode: "Never",
  calico_network_backend: "bird",
};
/** Everything pinned to the v2.18 cluster's pool and backend. */
export const IPIP_EVERYTHING = {
  calico_pool_name: "default-pool",
  calico_pool_cidr: "10.233.64.0/18",
  calico_pool_blocksize: 24,
  calico_ipip_mode: "Always",
  calico_vxlan_mode: "Never",
  calico_network_backend: "bird",
  nat_outgoing: true,
};
/** Everything pinned to VXLAN with the v2.18 cluster's pool. */
export const VXLAN_EVERYTHING = {
  ...IPIP_EVERYTHING,
  calico_ipip_mode: "Never",
  calico_vxlan_mode: "Always",
  calico_network_backend: "vxlan",
};
export const INVENTORIES: [string, Record<string, unknown>][] = [
  ["the release's defaults", {}],
  ["#8691's workaround", WORKAROUND_8691],
  ["the pool pinned, the backend left", POOL_PINNED],
  ["everything pinned to IPIP/bird", IPIP_EVERYTHING],
  ["everything pinned to VXLAN/vxlan", VXLAN_EVERYTHING],
];
export const KUBESPRAY_REFUSES = "Your inventory doesn't match the current cluster configuration";
/**
 * Kubespray's check's other refusal that a matrix meets: from v2.28 on it refuses a Calico older than the previous
 * release deployed (check.yml, "Check that current calico version is enough for upgrade": calico_min_version_required,
 * 3.27.0 in v2.31.0), as on the seed era's v3.22.0.
 */
export const KUBESPRAY_REFUSES_CALICO = "Your version of calico is not fresh enough for upgrade";

/** The live pool and backend, as the settings play names them. */
export async function liveSettings(lab: Lab): Promise<KubesprayCalicoSettings> {
  const pool = JSON.parse(await calicoctl(lab, "get", "ippool", "default-pool", "-o", "json")) as {
    metadata: { name: string };
    spec: { cidr: string; blockSize: number; ipipMode?: string; vxlanMode?: string };
  };
  const backend = await calicoBackend(lab);
  return {
    pool_name: pool.metadata.name,
    cidr: pool.spec.cidr,
    blockSize: pool.spec.blockSize,
    ipipMode: pool.spec.ipipMode ?? "Never",
    vxlanMode: pool.spec.vxlanMode ?? "Never",
    backend,
  };
}

/**
 * Whether the release's Calico role keeps an existing pool's blockSize: its install.yml has the task "Calico | Get
 * current calico network pool blocksize", which merges the live pool's over the inventory's (v2.22, v2.24 on; read
 * in the trees). Where it does, the role writes the live blockSize whatever the inventory says.
 */
export function keepsPoolBlockSize(release: KubesprayRelease): boolean {
  const install = join(
    kubesprayTree(release),
    "roles",
    "network_plugin",
    "calico",
    "tasks",
    "install.yml",
  );
  return readFileSync(install, "utf8").includes(
    "name: Calico | Get current calico network pool blocksize",
  );
}

/** The matrix's count line: cases, false blocks, misses, and where Kubespray's own check passed a change. */
export function matrixSummary(): string {
  const count = (f: (r: MatrixRow) => boolean): number => matrix.filter(f).length;
  return (
    `parity matrix: ${matrix.length} cases; false blocks ${count((r) => r.matches && r.preflight === "blocks")}, ` +
    `misses ${count((r) => !r.matches && r.preflight === "passes")}; Kubespray's own check passed ` +
    `${count((r) => !r.matches && r.kubespray === "passes")} case(s) where its role would change the cluster`
  );
}

/** A row of the matrix: a release's tree (galaxyVersion: relabelled, a fork of master) and one of INVENTORIES. */
export interface MatrixCase {
  release: KubesprayRelease;
  inventory: string;
  /** The fork's galaxy.yml says this version (KubesprayRun.galaxyVersion). */
  galaxyVersion?: string;
}

/** How a case names its fork: the release, or the release's tree as a fork whose galaxy.yml says another version. */
export function forkName(c: Pick<MatrixCase, "release" | "galaxyVersion">): string {
  return c.galaxyVersion
    ? `a fork whose galaxy.yml says ${c.galaxyVersion} (Kubespray ${c.release}'s tree)`
    : `Kubespray ${c.release}`;
}

export interface MatrixRow {
  state: string;
  release: KubesprayRelease;
  galaxyVersion?: string;
  inventory: string;
  /** The release's role would write what the cluster has (the settings play against the live objects). */
  matches: boolean;
  preflight: "passes" | "blocks";
  kubespray: "passes" | "refuses";
}
/** Every row run in this process, for the summary (matrixSummary). */
export const matrix: MatrixRow[] = [];

/**
 * One lab state: for each row (a release and one of INVENTORIES), Kubespray's own Calico check and the preflight,
 * held to what the release's Calico role would write (the settings play; where the release's install.yml keeps an
 * existing pool's blockSize, the live pool's, as that task merges it). The caller picks the rows for its tier.
 */
export function parityMatrix(state: string, lab: () => Lab, rows: MatrixCase[]): void {
  for (const { release, inventory, galaxyVersion } of rows) {
    const vars = INVENTORIES.find(([i]) => i === inventory)?.[1];
    if (vars === undefined) throw new Error(`no inventory named ${inventory}`);
    it(`${state}, ${forkName({ release, galaxyVersion })} (ansible ${KUBESPRAY_ANSIBLE[release]}), ${inventory}: the preflight passes exactly where the role would write what the cluster has`, async () => {
      const before = await everyResourceVersion(lab());
      const live = await liveSettings(lab());
      const pre = await runKubespray(lab(), {
        release,
        vars,
        plays: ["settings", "preflight"],
        ...(galaxyVersion ? { galaxyVersion } : {}),
      });
      const rendered = parseSettings(pre.output);
      const settings = keepsPoolBlockSize(release)
        ? { ...rendered, blockSize: live.blockSize }
        : rendered;
      const matches = (Object.keys(live) as (keyof KubesprayCalicoSettings)[]).every(
        (k) => String(settings[k]) === String(live[k]),
      );
      expect(pre.exitCode, pre.output).to.be.oneOf([0, 2]);
      expect(pre.output, "the preflight ran (the release known)").to.match(
        /TASK \[calico_encap\.kubespray\.calico_encap : Compare the inventory's Calico settings with the live cluster\]/,
      );
      const check = await runKubespray(lab(), {
        release,
        vars,
        plays: ["check"],
        ...(galaxyVersion ? { galaxyVersion } : {}),
      });
      expect(check.exitCode, check.output).to.be.oneOf([0, 2]);
      const row: MatrixRow = {
        state,
        release,
        ...(galaxyVersion ? { galaxyVersion } : {}),
        inventory,
        matches,
        preflight: pre.exitCode === 0 ? "passes" : "blocks",
        kubespray: check.exitCode === 0 ? "passes" : "refuses",
      };
      matrix.push(row);
      console.log(
        `      role would write ${JSON.stringify(settings)}; cluster ${matches ? "matches" : "differs"}; ` +
          `preflight ${row.preflight}; Kubespray's check ${row.kubespray}` +
          (check.output.includes(KUBESPRAY_REFUSES_CALICO) ? " (its minimum Calico version)" : ""),
      );
      if (check.exitCode !== 0)
        expect(
          [KUBESPRAY_REFUSES, KUBESPRAY_REFUSES_CALICO].filter((m) => check.output.includes(m)),
          `Kubespray's check refused on its pool assertion or its minimum Calico version:\n${check.output}`,
        ).to.have.length.above(0);
      expect(await everyResourceVersion(lab()), "nothing written").to.deep.equal(before);
      expect(row.preflight, matches ? "a false block" : "a miss").to.equal(
        matches ? "passes" : "blocks",
      );
    });
  }
}
