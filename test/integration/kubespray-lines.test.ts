// Every Kubespray line's own check beside the preflight (issue 51 item 5), on the cluster Kubespray v2.19.1's real
// Calico role installed with its defaults (VXLAN Always, backend vxlan, blockSize 24: its calico_pool_blocksize
// falls back to kube_network_node_prefix), each release on its own Ansible (test/support/kubespray.ts), the preflight
// from the installed collection as README places it in a fork of that release.
//
// The v2.19 -> v2.20 step: v2.20 moved calico_pool_blocksize's default to 26. The releases whose install.yml applies
// the inventory's blockSize to the existing pool (v2.20, v2.21, v2.23) would have Calico refuse it half-way through
// their play, so the preflight blocks; the releases whose install.yml keeps the live pool's (v2.22, v2.24 on) change
// nothing, so the preflight passes (with a warning that names the line to set). test/support/parity-matrix.ts holds
// each row to what the release's role would write.
//
// The quick tier: the v2.20 step, the first release that keeps the blockSize (v2.22), v2.23 (which does not), and one
// release per Ansible line after the seed's (ansible 8.5.0/core 2.15 v2.24, 9.13.0 v2.28, 10.7.0 v2.30, 11.13.0
// v2.31), each with its defaults, and v2.20 with everything pinned to the cluster's (it passes); the seed's own lines
// (v2.18, v2.19) are kubespray-seed.test's. The full tier: all fourteen lines with their defaults and with the pool
// pinned to the cluster's and the backend left.
//
// Then on the cluster Kubespray v2.31.0's role installed with its defaults (VXLAN Always, vxlan, blockSize 26): a fork
// of each line from v2.20 at its defaults matches it and passes, Kubespray's own check too; v2.19.1's defaults
// (blockSize 24, which its role applies) block. The quick tier: v2.20.0 (issue 50: make test's budget); the full all.

import { expect } from "chai";
import type { Lab } from "../support/lab.js";
import { labDown, labUp } from "../support/lab.js";
import { KUBESPRAY_RELEASES, type KubesprayRelease } from "../support/kubespray.js";
import {
  keepsPoolBlockSize,
  liveSettings,
  matrix,
  forkName,
  matrixSummary,
  parityMatrix,
  type MatrixCase,
} from "../support/parity-matrix.js";
import { TIER } from "../support/tier.js";

const DEFAULTS = "the release's defaults";
const QUICK: KubesprayRelease[] = [
  "v2.20.0",
  "v2.22.2",
  "v2.23.3",
  "v2.24.3",
  "v2.28.1",
  "v2.30.0",
  "v2.31.0",
];
/** v2.20.0 with the pool, the backend and blockSize pinned to the cluster's, on its own Ansible: it passes. */
const PINNED_V220 = { release: "v2.20.0" as const, inventory: "everything pinned to VXLAN/vxlan" };
const ROWS = [
  ...(TIER === "full"
    ? KUBESPRAY_RELEASES.flatMap((release) =>
        [DEFAULTS, "the pool pinned, the backend left"].map((inventory) => ({
          release,
          inventory,
        })),
      )
    : QUICK.map((release) => ({ release, inventory: DEFAULTS }))),
  PINNED_V220,
];
const STATE = "VXLAN/vxlan/24 (v2.19.1's defaults)";

/**
 * The matrix's rows on a lab Kubespray's real role installed (the profile, with env), its pool VXLAN/vxlan with this
 * blockSize; the count line at the end.
 */
function matrixOn(
  state: string,
  install: { profile: string; env?: Record<string, string>; blockSize: number },
  rows: { release: KubesprayRelease; inventory: string }[],
): void {
  let lab: Lab;
  before(async () => {
    lab = await labUp(install.profile, 3, undefined, install.env ?? {});
    expect(await liveSettings(lab)).to.deep.include({
      blockSize: install.blockSize,
      ipipMode: "Never",
      vxlanMode: "Always",
      backend: "vxlan",
    });
  });
  after(async () => {
    if (matrix.length > 0) console.log(`      ${matrixSummary()}`);
    await labDown();
  });
  parityMatrix(state, () => lab, rows);
}

describe("Every Kubespray line's own check beside the preflight, on the cluster v2.19.1 installed with its defaults", function () {
  this.timeout(900000);
  matrixOn(
    STATE,
    { profile: "kubespray-2.18", env: { LAB_KUBESPRAY_INSTALL: "v2.19.1" }, blockSize: 24 },
    ROWS,
  );

  it("the v2.19 -> v2.20 step: where the release applies its new blockSize default the preflight blocks, where it keeps the pool's it passes", () => {
    const row = (release: KubesprayRelease, inventory = DEFAULTS) =>
      matrix.find((r) => r.state === STATE && r.release === release && r.inventory === inventory);
    expect(row("v2.20.0", PINNED_V220.inventory), "v2.20.0, everything pinned").to.deep.include({
      matches: true,
      preflight: "passes",
    });
    for (const release of ROWS.filter((r) => r.inventory === DEFAULTS).map((r) => r.release)) {
      const kept = keepsPoolBlockSize(release);
      expect(row(release), release).to.deep.include(
        release === "v2.18.2"
          ? { matches: false, preflight: "blocks" } // v2.18's defaults are IPIP/bird
          : release === "v2.19.1"
            ? { matches: true, preflight: "passes" } // the defaults that installed this cluster (full tier)
            : { matches: kept, preflight: kept ? "passes" : "blocks" },
      );
    }
    // Kubespray's own check asserts the pool's blockSize equal to calico_pool_blocksize in every release (check.yml,
    // "Check if inventory match current cluster configuration"), where its role keeps the pool's too: it refuses
    // the defaults' rows from v2.20 on (26 against 24); under --tags=network it does not run, and only the preflight
    // stands between v2.20's role and the pool Calico refuses to change.
    for (const r of matrix.filter(
      (x) =>
        x.state === STATE &&
        x.inventory === DEFAULTS &&
        !["v2.18.2", "v2.19.1"].includes(x.release),
    ))
      expect(r.kubespray, `${r.release}'s own check`).to.equal("refuses");
    expect(
      (["v2.22.2", "v2.24.3"] as const).map(keepsPoolBlockSize),
      "v2.22 and v2.24 keep the blockSize",
    ).to.deep.equal([true, true]);
    expect(
      (["v2.20.0", "v2.23.3"] as const).map(keepsPoolBlockSize),
      "v2.20 and v2.23 do not",
    ).to.deep.equal([false, false]);
  });
});

const STATE_231 = "VXLAN/vxlan/26 (v2.31.0's defaults)";
/**
 * A fork of master: v2.31.0's tree whose galaxy.yml says 2.32.0, a release no table here knows; its defaults come from
 * its tree (issue 51), in both tiers.
 */
const NEXT: MatrixCase = { release: "v2.31.0", inventory: DEFAULTS, galaxyVersion: "2.32.0" };
/** On the cluster v2.31.0 installed: v2.19.1's defaults (blockSize 24, applied: Calico refuses) and the lines after. */
const ROWS_231: MatrixCase[] = [
  ...(TIER === "full" ? KUBESPRAY_RELEASES : (["v2.20.0"] as const)).map((release) => ({
    release,
    inventory: DEFAULTS,
  })),
  NEXT,
];

describe("Every Kubespray line's own check beside the preflight, on the cluster v2.31.0 installed with its defaults", function () {
  this.timeout(900000);
  matrixOn(STATE_231, { profile: "kubespray-2.31", blockSize: 26 }, ROWS_231);

  it("a fork of each line from v2.20 (and of master, 2.32.0) at its defaults passes on the cluster they describe; v2.19's blocks (blockSize 24)", () => {
    for (const c of ROWS_231) {
      const { release } = c;
      const row = matrix.find(
        (r) =>
          r.state === STATE_231 && r.release === release && r.galaxyVersion === c.galaxyVersion,
      );
      expect(row, forkName(c)).to.deep.include(
        release === "v2.18.2" || release === "v2.19.1"
          ? { matches: false, preflight: "blocks" }
          : { matches: true, preflight: "passes", kubespray: "passes" },
      );
    }
  });
});
