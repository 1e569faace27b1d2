// Kubespray's real Calico role against the lab (test/support/kubespray.ts), on clusters Kubespray's own role
// installed as lab.sh up starts the lab (the kubespray-2.18 profile: v2.18.2 with its defaults; the uninstalled
// profile with LAB_KUBESPRAY_INSTALL and LAB_KUBESPRAY_VARS: any release, any inventory).
// - Kubespray v2.18.2 installs IPIP Always with backend bird; v2.19.1's role with its defaults (VXLAN, backend
//   vxlan) is the upgrade of Kubespray issue #8691. With this project's preflight first in the same
//   ansible-playbook run, as the README tells a fork, the play stops before Kubespray's role writes anything.
//   Without it, and without Kubespray's own check (which refuses these defaults; ignore_assert_errors skips it), the
//   same role rewrites the pool in place, switches calico-config to vxlan and rolls calico-node, and the prober
//   measures the outage: the yardstick of an in-place switch. The seed's own break, with Kubespray's check passing,
//   is kubespray-seed.test.ts's.
// - Kubespray v2.31.0 (and v2.19.1 in the full tier) installs IPIP Always with backend bird (its inventory pinned),
//   calico_encap_migrate moves the cluster to the release's defaults, and its role with those defaults then changes
//   nothing: the same
//   calico-node pods and ControllerRevision, the same FelixConfiguration, IPPools, BGPConfiguration and
//   calico-config, and no probe lost.

import { expect } from "chai";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Lab } from "../support/lab.js";
import {
  calicoBackend,
  calicoctl,
  everyResourceVersion,
  kubectl,
  labDown,
  labUp,
  nodesStatus,
  readLabEnv,
  readProber,
  resetProber,
  startProber,
  waitUntil,
} from "../support/lab.js";
import { runKubespray, type KubesprayRelease } from "../support/kubespray.js";
import { failedResult } from "../support/playbook.js";
import { TIER } from "../support/tier.js";
import { hasClusterRoutes } from "../../src/calico/shared/cluster-routes.js";
import {
  installedObjects,
  readRecord,
  recordPath,
  type InstallRecord,
} from "../lab/kubespray-record.js";

const BLOCKED = "spec.ipipMode: cluster has Always, inventory (calico_ipip_mode) says Never";
/** The inventory of a user who kept IP-in-IP and BIRD (the check's pin_vars on a v2.18 cluster). */
const IPIP_PINNED = {
  calico_ipip_mode: "Always",
  calico_vxlan_mode: "Never",
  calico_network_backend: "bird",
};

/** The lab profiles that are a Kubespray release's own install (test/lab/lab.sh profile_vars). */
const PROFILES: { release: KubesprayRelease; vars: Record<string, unknown>; profile: string }[] = [
  { release: "v2.18.2", vars: {}, profile: "kubespray-2.18" },
  { release: "v2.31.0", vars: {}, profile: "kubespray-2.31" },
  { release: "v2.31.0", vars: IPIP_PINNED, profile: "kubespray-2.31-ipip" },
];

async function podUids(lab: Lab): Promise<string[]> {
  const pods = JSON.parse(
    await kubectl(
      lab,
      "-n",
      "kube-system",
      "get",
      "pods",
      "-l",
      "k8s-app=calico-node",
      "-o",
      "json",
    ),
  ) as { items: { metadata: { uid: string } }[] };
  return pods.items.map((p) => p.metadata.uid).sort();
}

async function controllerRevisions(lab: Lab): Promise<string[]> {
  const list = JSON.parse(
    await kubectl(lab, "-n", "kube-system", "get", "controllerrevisions", "-o", "json"),
  ) as { items: { metadata: { name: string }; revision: number }[] };
  return list.items.map((r) => `${r.metadata.name}@${r.revision}`).sort();
}

/**
 * The lab with Calico as a Kubespray release's real role installs it (lab.sh up runs it: the kubespray-2.18 profile
 * is v2.18.2's install with its defaults, the uninstalled profile with LAB_KUBESPRAY_INSTALL any release's), every
 * calico-node Ready (with BIRD for backend bird), the prober running and lossless.
 */
async function installedBy(release: KubesprayRelease, vars: Record<string, unknown>): Promise<Lab> {
  // Kubespray's role runs for real here (no record replayed), and its writes become the record later labs start from.
  // A release and inventory a profile names start from that profile, so the profiles run here too.
  const profile = PROFILES.find(
    (p) => p.release === release && JSON.stringify(p.vars) === JSON.stringify(vars),
  )?.profile;
  const lab = profile
    ? await labUp(profile, 3, undefined, { LAB_KUBESPRAY_REPLAY: "0" })
    : await labUp("uninstalled", 3, undefined, {
        LAB_KUBESPRAY_INSTALL: release,
        LAB_KUBESPRAY_VARS: JSON.stringify(vars),
        LAB_KUBESPRAY_REPLAY: "0",
      });
  const bird = release === "v2.18.2" || vars.calico_network_backend === "bird";
  expect(
    nodesStatus(lab).summary,
    `calico-node Ready${bird ? " with BIRD" : ", no BIRD"} on every node, as Kubespray ${release} installed it`,
  ).to.include({ podsReady: 3, birdRunning: bird ? 3 : 0 });
  await startProber(lab);
  await resetProber(lab);
  await new Promise((r) => setTimeout(r, 2000));
  const steady = await readProber(lab);
  expect(steady.lost, `no loss on the cluster Kubespray ${release} installed`).to.equal(0);
  expect(steady.sent).to.be.greaterThan(500);
  return lab;
}

/**
 * The negative control: a release's role with its defaults (VXLAN, backend vxlan) on an IPIP/bird cluster switches
 * the pool in place, switches calico-config to vxlan and rolls calico-node; the prober measures the outage, and the
 * cluster ends on a working VXLAN data plane.
 */
async function negativeControl(
  lab: Lab,
  release: KubesprayRelease,
  installed: string,
): Promise<void> {
  const uids = await podUids(lab);
  await resetProber(lab);
  const r = await runKubespray(lab, { release });
  expect(r.exitCode, r.output).to.equal(0);
  await waitUntil(
    "calico-node rolled with backend vxlan",
    () => {
      const s = nodesStatus(lab).summary;
      return s.podsReady === 3 && s.birdRunning === 0 && s.vxlanTunnelAddrs === 3;
    },
    180000,
  );
  const during = await readProber(lab);
  const pool = JSON.parse(await calicoctl(lab, "get", "ippool", "default-pool", "-o", "json")) as {
    spec: { ipipMode: string; vxlanMode: string };
  };
  expect(pool.spec, "Kubespray merged its defaults into the live pool").to.include({
    ipipMode: "Never",
    vxlanMode: "Always",
  });
  expect(await calicoBackend(lab)).to.equal("vxlan");
  const rolled = await podUids(lab);
  expect(
    rolled.filter((u) => uids.includes(u)),
    "every calico-node pod replaced",
  ).to.deep.equal([]);
  console.log(
    `      Kubespray ${release}'s role with its defaults on ${installed}'s IPIP/bird cluster: ${during.lost} of ${during.sent} probes lost, ` +
      `longest gap ${during.longest_gap_ms} ms`,
  );
  expect(during.lost, "probes lost while Kubespray's role ran").to.be.greaterThan(0);
  expect(during.longest_gap_ms, "an outage, not jitter").to.be.greaterThan(1000);
  // It ends on a working VXLAN data plane: the breakage is the outage on the way.
  await resetProber(lab);
  await new Promise((r) => setTimeout(r, 3000));
  const settled = await readProber(lab);
  expect(settled.lost, "no loss once calico-node runs on VXLAN").to.equal(0);
  expect(settled.sent).to.be.greaterThan(500);
}

/** Objects compared across runs: calicoctl's creation time inside projectcalico.org/metadata left out. */
function comparable(objects: InstallRecord["objects"]): unknown[] {
  return JSON.parse(
    JSON.stringify(objects).replace(/\\"creationTimestamp\\":\\"[^\\]*\\",?/g, ""),
  ) as unknown[];
}

/**
 * KUBESPRAY_RELEASE (make test-full: v2.28.1 with LAB_CALICO=v3.29.0, v2.30.0 with LAB_CALICO=v3.30.1) runs that
 * release's rows alone, on the lab's Calico: the maintained releases whose own Calico the Go module proxy does not
 * serve run on the nearest one it does (test/lab/lib.sh). Unset, the file runs on the lab's default Calico without
 * those two releases' rows.
 */
const ONLY_RELEASE = process.env.KUBESPRAY_RELEASE ?? "";
const OWN_CALICO_RELEASES = ["v2.28.1", "v2.30.0"];
const everyRow = ONLY_RELEASE === "" ? describe : describe.skip;

everyRow(
  "Kubespray v2.18.2 installs IPIP/bird; v2.19.1's real role with its defaults upgrades it",
  function () {
    this.timeout(900000);
    let lab: Lab;
    let earlier: InstallRecord | null = null;
    before(async () => {
      earlier = readRecord(recordPath("v2.18.2", {}));
      lab = await installedBy("v2.18.2", {});
    });
    after(labDown);

    it("v2.18.2's role wrote what its run recorded earlier wrote (the record the kubespray-2.18 lab starts from)", async function () {
      const now = await installedObjects(lab);
      expect(now.length, "objects written").to.be.at.least(9);
      if (!earlier) {
        console.log(
          "      no earlier record of v2.18.2's install on this machine: this run made it",
        );
        this.skip();
      }
      expect(comparable(now)).to.deep.equal(comparable(earlier.objects));
    });

    it("v2.18.2's role installed the pool with IPIP Always and calico-config with bird", async () => {
      const pool = JSON.parse(
        await calicoctl(lab, "get", "ippool", "default-pool", "-o", "json"),
      ) as {
        spec: { ipipMode: string; vxlanMode: string; cidr: string };
      };
      expect(pool.spec).to.include({
        ipipMode: "Always",
        vxlanMode: "Never",
        cidr: "10.233.64.0/18",
      });
      expect(nodesStatus(lab).summary).to.include({ ipipTunnelAddrs: 3, vxlanTunnelAddrs: 0 });
    });

    it("the preflight, first in the same ansible-playbook run, stops the play before Kubespray writes anything", async () => {
      const before = await everyResourceVersion(lab);
      expect(Object.keys(before).length, "objects compared").to.be.greaterThan(20);
      const r = await runKubespray(lab, { release: "v2.19.1", plays: ["preflight", "calico"] });
      expect(r.exitCode, r.output).to.equal(2);
      expect(r.output).to.include(BLOCKED);
      expect(r.output, "no task of Kubespray's Calico play ran").not.to.match(
        /TASK \[(network_plugin\/calico|Stand-in)/,
      );
      expect(r.recap["node-1"], r.output).to.include({ failed: 1, changed: 0 });
      expect(await everyResourceVersion(lab)).to.deep.equal(before);
    });

    it("the in-place switch, the yardstick: the same role alone (Kubespray's check skipped, as ignore_assert_errors skips it) switches the pool in place and rolls calico-node", async () => {
      await negativeControl(lab, "v2.19.1", "v2.18.2");
    });
  },
);

/**
 * A cluster a release installed with one inventory (from), and a user whose inventory now says another (to): the
 * preflight blocks it and gives pin_vars; the release's role with those lines changes nothing (the pin path); then
 * the migration to `to` (in place, or with tunnel_pool_cidr), after which the role with `to` changes nothing.
 */
interface NextRun {
  release: KubesprayRelease;
  from: Record<string, unknown>;
  to: Record<string, unknown>;
  toName: string;
  /** The migration's tunnel_pool_cidr; undefined: the pool switches in place. */
  tunnelPoolCidr?: string;
  /** The preflight first in the play, then the role with its pin_vars (full tier only). */
  pin: boolean;
}
const DEFAULTS: Record<string, unknown> = {};
/** A network the lab uses nowhere: not the pods' or services' 10.233.0.0/17, not the nodes' 172.31.x underlays. */
const TUNNEL_POOL_CIDR = "172.30.0.0/24";
/**
 * The way there (IPIP pinned -> the release's defaults) for v2.31.0; the full tier adds v2.19.1 (the seed's v2.19.1
 * role runs in make test in kubespray-seed.test), v2.28.1, v2.30.0, v2.31.0 with tunnel_pool_cidr and v2.31.0's way
 * back (issue 50: make test within 45 minutes cold).
 */
const ALL_NEXT_RUNS: NextRun[] = [
  ...(TIER === "full" ? (["v2.19.1", "v2.31.0"] as const) : (["v2.31.0"] as const)).map(
    (release) => ({
      release,
      from: IPIP_PINNED,
      to: DEFAULTS,
      toName: "its defaults",
      pin: TIER === "full",
    }),
  ),
  ...(TIER === "full"
    ? [
        ...(["v2.28.1", "v2.30.0"] as const).map((release) => ({
          release,
          from: IPIP_PINNED,
          to: DEFAULTS,
          toName: "its defaults",
          pin: true,
        })),
        {
          release: "v2.31.0" as const,
          from: IPIP_PINNED,
          to: DEFAULTS,
          toName: "its defaults with tunnel_pool_cidr",
          tunnelPoolCidr: TUNNEL_POOL_CIDR,
          pin: false,
        },
        {
          release: "v2.31.0" as const,
          from: DEFAULTS,
          to: IPIP_PINNED,
          toName: "IPIP pinned",
          pin: true,
        },
      ]
    : []),
];

/**
 * Runs a release's role with an inventory and asserts that it changed nothing: the same calico-node pods and
 * ControllerRevisions, FelixConfiguration, IPPools, BGPConfiguration, calico-config and the DaemonSet at the same
 * resourceVersion, and no probe lost.
 */
async function expectRoleChangesNothing(
  lab: Lab,
  release: KubesprayRelease,
  vars: Record<string, unknown>,
  label: string,
): Promise<void> {
  const before = await everyResourceVersion(lab);
  const uids = await podUids(lab);
  const revisions = await controllerRevisions(lab);
  await resetProber(lab);
  const r = await runKubespray(lab, { release, vars });
  expect(r.exitCode, r.output).to.equal(0);
  // Long enough for a roll to start: kube-controller-manager acts on a new template within a second.
  await new Promise((r) => setTimeout(r, 5000));
  const figures = await readProber(lab);
  const after = await everyResourceVersion(lab);
  const changed = Object.keys({ ...before, ...after }).filter((k) => before[k] !== after[k]);
  console.log(
    `      Kubespray ${release}'s role ${label}: ${figures.lost} of ${figures.sent} probes lost; changed: ${changed.join(", ") || "nothing"}`,
  );
  expect(await podUids(lab), "the same calico-node pods").to.deep.equal(uids);
  expect(await controllerRevisions(lab), "no new ControllerRevision").to.deep.equal(revisions);
  const watched = changed.filter((k) =>
    /^(FelixConfiguration|IPPool|BGPConfiguration)\/|^ConfigMap\/kube-system\/calico-config$|^DaemonSet\//.test(
      k,
    ),
  );
  expect(
    watched,
    "FelixConfiguration, IPPools, BGPConfiguration, calico-config, the DaemonSet",
  ).to.deep.equal([]);
  expect(figures.lost, "probes lost").to.equal(0);
  expect(figures.sent).to.be.greaterThan(1000);
}

const NEXT_RUNS = ALL_NEXT_RUNS.filter((r) =>
  ONLY_RELEASE === "" ? !OWN_CALICO_RELEASES.includes(r.release) : r.release === ONLY_RELEASE,
);
if (ONLY_RELEASE !== "" && NEXT_RUNS.length === 0)
  throw new Error(
    `KUBESPRAY_RELEASE=${ONLY_RELEASE} names none of the releases this tier runs: ${[...new Set(ALL_NEXT_RUNS.map((r) => r.release))].join(", ")}`,
  );

for (const { release, from, to, toName, tunnelPoolCidr, pin } of NEXT_RUNS)
  describe(`Kubespray ${release}'s next run after the migration to ${toName} changes nothing`, function () {
    this.timeout(900000);
    let lab: Lab;
    let pinVars: Record<string, unknown> = {};
    before(async () => {
      lab = await installedBy(release, from);
    });
    after(labDown);

    if (pin)
      it(`the preflight, first in the play with ${toName} in the inventory, stops it before Kubespray's role writes anything and gives the lines that keep the cluster (pin_vars)`, async () => {
        const before = await everyResourceVersion(lab);
        const r = await runKubespray(lab, { release, vars: to, plays: ["preflight", "calico"] });
        expect(r.exitCode, r.output).to.equal(2);
        expect(r.output, "no task of Kubespray's Calico play ran").not.to.match(
          /TASK \[(network_plugin\/calico|Stand-in)/,
        );
        expect(await everyResourceVersion(lab)).to.deep.equal(before);
        const result = failedResult(r.output);
        expect(result, r.output).to.have.property("pin_vars").that.is.an("object");
        pinVars = (result?.pin_vars ?? {}) as Record<string, unknown>;
        expect(
          Object.keys(pinVars),
          "pin_vars names the encapsulation variables",
        ).to.include.members(Object.keys(IPIP_PINNED));
      });

    if (pin)
      it(`${release}'s role with ${toName} and those pin_vars changes nothing and loses nothing`, async () => {
        expect(Object.keys(pinVars), "pin_vars from the preflight above").not.to.deep.equal([]);
        await expectRoleChangesNothing(lab, release, { ...to, ...pinVars }, "with pin_vars");
      });

    it(`calico_encap migrates the cluster ${release} installed to ${toName}`, async () => {
      const r = await runKubespray(lab, {
        release,
        vars: {
          ...to,
          calico_encap_wait_sleep: 1,
          ...(tunnelPoolCidr ? { calico_encap_tunnel_pool_cidr: tunnelPoolCidr } : {}),
        },
        plays: ["migrate"],
      });
      expect(r.exitCode, r.output).to.equal(0);
      expect(r.output).to.match(/"msg": "Migrated in \d+ step\(s\): /);
      // Felix owns the routes through the switch with a tunnel pool on Calico v3.31 and later (issue 20), BIRD else:
      // the run's message lists its steps, and only Felix's path has the one that hands the routes to Felix.
      const felix =
        tunnelPoolCidr !== undefined && hasClusterRoutes(lab.env.LAB_CALICO_RELEASE ?? null);
      if (felix)
        expect(r.output).to.match(
          /Enable [^;"]*programClusterRoutes: Enabled in FelixConfiguration default/,
        );
      else expect(r.output).to.not.include("programClusterRoutes");
      expect(nodesStatus(lab).summary).to.include(
        to.calico_network_backend === "bird"
          ? { birdRunning: 3, ipipTunnelAddrs: 3 }
          : { birdRunning: 0, vxlanTunnelAddrs: 3 },
      );
      if (tunnelPoolCidr) {
        const pools = await calicoctl(lab, "get", "ippool", "-o", "wide");
        expect(pools, "the tunnel pool stays").to.include(tunnelPoolCidr);
      }
    });

    it(`${release}'s role with ${toName} then changes nothing and loses nothing`, async () => {
      await expectRoleChangesNothing(lab, release, to, "after the migration");
    });
  });

if (TIER === "full")
  everyRow(
    "Kubespray v2.31.0 installs IPIP/bird (pinned); its role with its defaults upgrades it",
    function () {
      this.timeout(900000);
      let lab: Lab;
      before(async () => {
        lab = await installedBy("v2.31.0", IPIP_PINNED);
      });
      after(labDown);

      it("switches the pool in place and rolls calico-node: the negative control", async () => {
        await negativeControl(lab, "v2.31.0", "v2.31.0");
      });
    },
  );

everyRow(
  "a kubespray-2.18 lab started from the record holds what v2.18.2's role wrote",
  function () {
    this.timeout(600000);
    after(labDown);

    it("the same objects, every calico-node Ready with BIRD, and no probe lost", async () => {
      const lab = await labUp("kubespray-2.18");
      const record = readRecord(recordPath("v2.18.2", {}));
      expect(record, "the record v2.18.2's real run above wrote").to.not.equal(null);
      expect(readFileSync(join(lab.state, "log", "kubespray-install.log"), "utf8")).to.match(
        /^replayed /m,
      );
      expect(await installedObjects(lab)).to.deep.equal(record?.objects);
      expect(nodesStatus(lab).summary).to.include({
        podsReady: 3,
        birdRunning: 3,
        ipipTunnelAddrs: 3,
      });
      await startProber(lab);
      await resetProber(lab);
      await new Promise((r) => setTimeout(r, 2000));
      const steady = await readProber(lab);
      expect(steady.lost).to.equal(0);
      expect(steady.sent).to.be.greaterThan(500);
    });

    // The full tier only: the roll is Kubespray's, not the project's, and the record's objects above are what the
    // quick tier's kubespray-2.18 labs start from.
    if (TIER === "full")
      it("a calico-node roll under BIRD loses no probe as the runtime stops calico/node (BIRD killed, its peers keep its routes); with BIRD stopped by SIGTERM it does", async () => {
        const lab = readLabEnv();
        const killed = await rollCalicoNode(lab);
        writeFileSync(join(lab.state, "pod-stop"), "term\n");
        let termed: Awaited<ReturnType<typeof rollCalicoNode>>;
        try {
          termed = await rollCalicoNode(lab);
        } finally {
          rmSync(join(lab.state, "pod-stop"), { force: true });
        }
        console.log(
          `      calico-node rolled under IPIP/bird, one node at a time: ${killed.lost} of ${killed.sent} probes lost (longest gap ${killed.longest_gap_ms} ms) ` +
            `as the runtime stops it; ${termed.lost} of ${termed.sent} (longest gap ${termed.longest_gap_ms} ms) with each service sent SIGTERM`,
        );
        expect(
          termed.lost,
          "the yardstick: BIRD's clean shutdown makes its peers withdraw its routes",
        ).to.be.greaterThan(0);
        expect(termed.longest_gap_ms, "an outage, not jitter").to.be.greaterThan(1000);
        expect(killed.lost, "probes lost while calico-node rolled").to.equal(0);
        expect(killed.sent).to.be.greaterThan(1000);
      });
  },
);

/** Rolls calico-node as a template change does (maxUnavailable as Kubespray rendered it) and measures the roll. */
async function rollCalicoNode(
  lab: Lab,
): Promise<{ lost: number; sent: number; longest_gap_ms: number }> {
  const uids = await podUids(lab);
  await resetProber(lab);
  await kubectl(lab, "-n", "kube-system", "rollout", "restart", "daemonset", "calico-node");
  await waitUntil(
    "every calico-node pod replaced, Ready with BIRD",
    async () => {
      const now = await podUids(lab);
      const s = nodesStatus(lab).summary;
      return (
        now.length === 3 &&
        now.every((u) => !uids.includes(u)) &&
        s.podsReady === 3 &&
        s.birdRunning === 3
      );
    },
    180000,
  );
  // BIRD's sessions established again, and a little more: routes withdrawn late would show here.
  await new Promise((r) => setTimeout(r, 3000));
  return readProber(lab);
}
