// Killing calico_encap_migrate during each step (as its write goes out) and during each wait (while it polls),
// in both directions, and re-running it, on the real calico-node (v3.31.0 under the lab kubelet). One migration
// per direction and phase: its run is killed at step 1, the re-run at step 2, and so on (each re-run resumes from
// what the last kill left and is killed at the next step), then a last run through Ansible completes it. Every
// re-run resumes, the migration ends at its target, calico-node's maxUnavailable is back at Kubespray's 20% with
// no held annotation. The probes lost (pod to pod and host to remote pod): on Felix's path (the tunnel pool chains on
// Calico >= 3.31) none across the whole chain but at BIRD's rewrites during the takeover (expectNoLoss); on BIRD's
// path they fit in the pool switch window of the same migration. The kill points come from the module's own log
// lines (runAndKill, test/support/module-process.ts).

import { expect } from "chai";
import { expectOutageBelow } from "../support/outage-bounds.js";
import { execa } from "execa";
import { plan } from "../../src/calico/plan/plan.js";
import { HELD_MAX_UNAVAILABLE, heldValue } from "../../src/calico/shared/rollout.js";
import type { ClusterObservation, Target } from "../../src/calico/shared/observation.js";
import { containsAddress } from "../../src/calico/shared/cidr.js";
import { runTask } from "../support/ansible.js";
import { TIER } from "../support/tier.js";
import type { Lab, StepTiming } from "../support/lab.js";
import { hasClusterRoutes } from "../../src/calico/shared/cluster-routes.js";
import { TAKEOVER_STEP, labBirdRewrites } from "../support/bird-rewrites.js";
import {
  expectNoLoss,
  felixDefaultSpec,
  kubectl,
  labDown,
  labUp,
  migrateArgs,
  poolSwitchWindowMs,
  readProber,
  resetProber,
  nodesStatus,
  patchFelixDefault,
  startProber,
  waitUntil,
} from "../support/lab.js";
import { runAndKill, type Phase, type Timeline } from "../support/module-process.js";
import type { Encap } from "../support/sim-cluster.js";
import { applyWrite, converge, modes, start, target } from "../support/sim-cluster.js";

type Direction = "to VXLAN" | "to IPIP" | "to VXLAN, tunnel pool" | "to IPIP, tunnel pool";
const STATES: Record<
  Direction,
  { from: [Encap, "bird" | "vxlan"]; to: [Encap, "bird" | "vxlan"] }
> = {
  "to VXLAN": { from: ["IPIP Always", "bird"], to: ["VXLAN Always", "vxlan"] },
  "to IPIP": { from: ["VXLAN Always", "vxlan"], to: ["IPIP Always", "bird"] },
  "to VXLAN, tunnel pool": { from: ["IPIP Always", "bird"], to: ["VXLAN Always", "vxlan"] },
  "to IPIP, tunnel pool": { from: ["VXLAN Always", "vxlan"], to: ["IPIP Always", "bird"] },
};
/**
 * The tunnel pools of the "tunnel pool" runs, each a Tunnel-only pool created before the pool switch: on this lab's
 * Calico (v3.31.0) both take Felix's path (programClusterRoutes; src/calico/shared/cluster-routes.ts).
 */
const TUNNEL_POOLS: Partial<
  Record<Direction, { name: string; cidr: string; annotation: string; target: Partial<Target> }>
> = {
  "to VXLAN, tunnel pool": {
    name: "default-pool-vxlan-tunnel",
    cidr: "172.30.0.0/24",
    annotation: "projectcalico.org/IPv4VXLANTunnelAddr",
    target: { tunnelPoolCidr: "172.30.0.0/24" },
  },
  "to IPIP, tunnel pool": {
    name: "default-pool-ipip-tunnel",
    cidr: "172.30.1.0/24",
    annotation: "projectcalico.org/IPv4IPIPTunnelAddr",
    target: { ipipTunnelPoolCidr: "172.30.1.0/24" },
  },
};
const tunnelPoolOf = (d: Direction): Partial<Target> => TUNNEL_POOLS[d]?.target ?? {};

/** The Calico release the lab runs (test/lab/lib.sh: LAB_CALICO, v3.31.0 by default), which the planner's path depends on. */
const LAB_CALICO = process.env.LAB_CALICO ?? "v3.31.0";

/** The steps with a write the executor takes in a direction, by the pure planner on the simulated cluster. */
function writeSteps(d: Direction): string[] {
  const { from, to } = STATES[d];
  let obs: ClusterObservation = start(from[0], from[1], "explicit", LAB_CALICO);
  const goal = { ...target(to[0], to[1]), ...tunnelPoolOf(d) };
  const titles: string[] = [];
  for (let i = 0; i < 20; i++) {
    const p = plan(obs, goal);
    const step = p.ok ? p.steps.find((s) => s.write !== null) : undefined;
    if (!step?.write) return titles;
    titles.push(step.title);
    obs = converge(applyWrite(obs, step.write));
  }
  throw new Error("the plan did not finish");
}

/** One migration killed at every step (as its write goes out) or at every wait (after two polls), in turn. */
interface Chain {
  direction: Direction;
  phase: Phase;
}

/**
 * Alternating directions, so each migration starts where the one before ended. A "tunnel pool" run starts without
 * the tunnel pool (an earlier one's is deleted first, under IPIP where no traffic uses it), so that its creation is
 * among the steps killed. The in-place waits are killed in the tunnel pool's chain: the same waits, with the VTEPs
 * allocated in the tunnel pool's step instead of the pool switch's.
 */
const ALL_CHAINS: Chain[] = [
  { direction: "to VXLAN", phase: "step" },
  { direction: "to IPIP", phase: "step" },
  { direction: "to VXLAN, tunnel pool", phase: "wait" },
  { direction: "to IPIP", phase: "wait" },
  { direction: "to VXLAN, tunnel pool", phase: "step" },
  { direction: "to IPIP, tunnel pool", phase: "step" },
  { direction: "to VXLAN, tunnel pool", phase: "wait" },
  { direction: "to IPIP, tunnel pool", phase: "wait" },
];
/**
 * The quick tier (make test): one chain per direction. The tunnel pool's writes include every write of the in-place
 * path (asserted below), and towards bird the waits, where the held maxUnavailable must survive a kill; the full
 * tier (make test-full) kills every step and every wait of every path.
 */
const QUICK_CHAINS: Chain[] = [
  { direction: "to VXLAN, tunnel pool", phase: "step" },
  { direction: "to IPIP", phase: "wait" },
];
const CHAINS = TIER === "full" ? ALL_CHAINS : QUICK_CHAINS;

function args(lab: Lab, d: Direction): Record<string, unknown> {
  const [encap, backend] = STATES[d].to;
  const { tunnelPoolCidr, ipipTunnelPoolCidr } = tunnelPoolOf(d);
  return {
    ...migrateArgs(lab),
    ipip_mode: modes(encap).ipipMode,
    vxlan_mode: modes(encap).vxlanMode,
    network_backend: backend,
    ...(tunnelPoolCidr === undefined ? {} : { tunnel_pool_cidr: tunnelPoolCidr }),
    ...(ipipTunnelPoolCidr === undefined ? {} : { ipip_tunnel_pool_cidr: ipipTunnelPoolCidr }),
  };
}

/** A "tunnel pool" run starts without its tunnel pool, so that creating it is among the steps killed. */
async function dropTunnelPool(lab: Lab, d: Direction): Promise<void> {
  const pool = TUNNEL_POOLS[d];
  if (!pool) return;
  // Before the switch no traffic uses the tunnel pool's addresses (under IPIP the VTEPs, under VXLAN the IPIP
  // tunnel addresses); allocate-tunnel-addrs releases them.
  await execa(lab.calicoctlSh, ["delete", "ippool", pool.name], { reject: false });
  await waitUntil(`no node keeps an address from ${pool.name}`, async () => {
    const nodes = JSON.parse(await kubectl(lab, "get", "nodes", "-o", "json")) as {
      items: { metadata: { annotations?: Record<string, string> } }[];
    };
    return nodes.items.every(
      (n) => !containsAddress(pool.cidr, n.metadata.annotations?.[pool.annotation] ?? "0.0.0.0"),
    );
  });
}

/**
 * Sets the Felix flags to the explicit values Kubespray 2.18 writes for the current encapsulation, and
 * programClusterRoutes unset (a way into IPIP on Felix's path leaves it Enabled), so each run starts where
 * writeSteps' simulation starts, whatever the last run left. Handing the IPIP routes back to BIRD costs up to its
 * 2 s kernel scan: before the run, it waits until the prober has seen 3 s without a lost probe.
 */
async function pinFelix(lab: Lab, d: Direction): Promise<void> {
  const ipip = STATES[d].from[0].startsWith("IPIP");
  const before = await felixDefaultSpec(lab);
  await patchFelixDefault(lab, {
    ipipEnabled: ipip,
    vxlanEnabled: !ipip,
    programClusterRoutes: null,
  });
  if (before.programClusterRoutes === undefined) return;
  await waitUntil(
    "3 s without a lost probe after programClusterRoutes was unset",
    async () => {
      await resetProber(lab);
      await new Promise((r) => setTimeout(r, 3000));
      return (await readProber(lab)).lost === 0;
    },
    60000,
  );
}

/** The calico-node DaemonSet's maxUnavailable and the annotation that holds the one the migration found. */
async function rollout(lab: Lab): Promise<{ maxUnavailable: unknown; held: string | undefined }> {
  const ds = JSON.parse(
    await kubectl(lab, "-n", "kube-system", "get", "daemonset", "calico-node", "-o", "json"),
  ) as {
    metadata: { annotations?: Record<string, string> };
    spec: { updateStrategy: { rollingUpdate?: { maxUnavailable?: unknown } } };
  };
  return {
    maxUnavailable: ds.spec.updateStrategy.rollingUpdate?.maxUnavailable,
    held: ds.metadata.annotations?.[HELD_MAX_UNAVAILABLE],
  };
}

/**
 * The window the probes lost in a migration are held to, in ms. The pool switch is the one step that loses probes
 * on the real calico-node (real-calico-node.test.ts): from its write until every node routes the pool the new way,
 * inside that step. When the last run switched the pool: its pool switch step + 1 s (poolSwitchWindowMs). When a
 * killed run did: from its first pool write to the next step's opening line in any later log, or, when the kills
 * came before that, to the end of the last run (which then also covers re-runs' start-up and waits), + 1 s.
 */
function lossWindowMs(
  t: Timeline,
  last: { title: string; seconds: number }[],
  end: number,
): { ms: number; measured: string } {
  const isPool = (title: string): boolean => /Switch IPPool/.test(title);
  const written = t.written.find((w) => isPool(w.title));
  if (!written)
    return { ms: poolSwitchWindowMs(last), measured: "the last run's pool switch step + 1 s" };
  const next = t.opened.find((o) => o.at > written.at && !isPool(o.title));
  return next
    ? {
        ms: next.at - written.at + 1000,
        measured: "from a killed run's pool write to the next step + 1 s",
      }
    : {
        ms: end - written.at + 1000,
        measured: "from a killed run's pool write to the last run's end + 1 s",
      };
}

/**
 * The step that turns programClusterRoutes on, timed across the chain's runs for expectNoLoss: from its first write
 * (a killed run's, or the last run's own step) to the next step's opening line in any later log, or the last run's
 * end. None when no run wrote it.
 */
function takeoverSteps(
  t: Timeline,
  last: { title: string; seconds: number; written_at?: string }[],
  end: number,
): StepTiming[] {
  const written = t.written.find((w) => TAKEOVER_STEP.test(w.title));
  if (!written) return last.filter((s) => TAKEOVER_STEP.test(s.title));
  const next = t.opened.find((o) => o.at > written.at && !TAKEOVER_STEP.test(o.title));
  return [
    {
      title: written.title,
      written_at: new Date(written.at).toISOString(),
      seconds: ((next?.at ?? end) - written.at) / 1000,
    },
  ];
}

describe("calico_encap_migrate killed during each step and each wait, then re-run", function () {
  this.timeout(1800000);
  let lab: Lab;
  let calico = "";
  before(async () => {
    lab = await labUp("kubespray-2.18", 3);
    calico = lab.env.LAB_CALICO_RELEASE ?? "v3.31.0";
    await waitUntil("calico-node ready with BIRD", () => {
      const s = nodesStatus(lab).summary;
      return s.podsReady === 3 && s.birdRunning === 3;
    });
    await startProber(lab);
  });
  after(labDown);

  it("kills every step and every wait of both directions, in the plans the planner makes", () => {
    const bird = writeSteps("to IPIP");
    expect(bird[0]).to.match(/^Let calico-node roll on every node at once/);
    expect(bird.at(-1)).to.equal("Restore the calico-node DaemonSet's maxUnavailable to 20%");
    expect(writeSteps("to VXLAN")).to.have.length.at.least(3);
    expect(writeSteps("to VXLAN, tunnel pool")[1]).to.match(
      /^Create IPPool default-pool-vxlan-tunnel \(172\.30\.0\.0\/24/,
    );
    // ipip_tunnel_pool_cidr is Felix's path (programClusterRoutes, Calico >= 3.31); before, the way into IPIP
    // keeps BIRD's path and makes no IPIP tunnel pool (LAB_CALICO=v3.22.0).
    if (hasClusterRoutes(LAB_CALICO))
      expect(writeSteps("to IPIP, tunnel pool")).to.include(
        "Create IPPool default-pool-ipip-tunnel (172.30.1.0/24, IPIP, Tunnel only) and wait until every node has its IPIP tunnel address from it",
      );
    // Every write of every path is killed; every wait too, the in-place VXLAN waits within the tunnel pool's path.
    const all: Direction[] = [
      "to VXLAN",
      "to IPIP",
      "to VXLAN, tunnel pool",
      "to IPIP, tunnel pool",
    ];
    for (const d of all)
      expect(ALL_CHAINS, `${d} step`).to.deep.include({ direction: d, phase: "step" });
    for (const d of all.filter((x) => x !== "to VXLAN"))
      expect(ALL_CHAINS, `${d} wait`).to.deep.include({ direction: d, phase: "wait" });
    // Each tier's chains alternate directions, so each starts where the one before ended (the lab starts on IPIP).
    for (const chains of [ALL_CHAINS, QUICK_CHAINS])
      chains.forEach((c, i) =>
        expect(c.direction.startsWith("to VXLAN"), `chain ${i + 1}`).to.equal(i % 2 === 0),
      );
    // Felix's path writes what the in-place path writes, and the tunnel pool: the same kinds of write, in order.
    const kinds = (d: Direction): string[] =>
      writeSteps(d)
        .filter((t) => !t.startsWith("Create IPPool"))
        .map((t) => t.split(" ")[0] ?? "");
    expect(kinds("to VXLAN, tunnel pool")).to.deep.equal(kinds("to VXLAN"));
    expect(kinds("to IPIP, tunnel pool")).to.deep.equal(kinds("to IPIP"));
  });

  for (const c of CHAINS) {
    const steps = writeSteps(c.direction);
    const how = c.phase === "step" ? "as it writes" : "while it waits after";
    it(`${c.direction}: killed ${how} each of its ${steps.length} steps in turn, each time re-run, then completed through Ansible`, async () => {
      await dropTunnelPool(lab, c.direction);
      await pinFelix(lab, c.direction);
      await resetProber(lab);
      const t: Timeline = { opened: [], written: [] };
      for (const [i, title] of steps.entries()) {
        await runAndKill(args(lab, c.direction), title, c.phase, t);
        // Towards bird the first write sets maxUnavailable 100% and holds 20% in the annotation; the last puts it
        // back. A run killed after the first write (and before the last) leaves both for the re-run to restore.
        const held =
          c.direction === "to IPIP" && i < steps.length - 1 && (c.phase === "wait" || i > 0);
        if (held)
          expect(
            await rollout(lab),
            `killed at '${title}': calico-node rolls all at once`,
          ).to.deep.equal({
            maxUnavailable: "100%",
            held: heldValue("20%"),
          });
      }
      const r = (await runTask({ calico_encap_migrate: args(lab, c.direction) })).result;
      const end = Date.now();
      const p = await readProber(lab);
      expect(r.failed, r.msg).to.not.equal(true);
      const last = (r.steps ?? []) as { title: string; seconds: number }[];
      const w = lossWindowMs(t, last, end);
      console.log(
        `      ${p.lost} of ${p.sent} probes lost (${p.rate_pps} pps), longest gap ${p.longest_gap_ms} ms; window ${w.ms} ms (${w.measured}); last run's steps ${last.map((s) => s.seconds).join(" s, ") || "none"}`,
      );
      // Every step was killed: its opening line appeared in a killed run's log (and every write went out).
      expect([...new Set(t.opened.map((o) => o.title))]).to.deep.equal(steps);
      const [encap, backend] = STATES[c.direction].to;
      expect(r.migrated_to).to.deep.equal({
        backend,
        pools: [
          {
            name: "default-pool",
            ipip_mode: modes(encap).ipipMode,
            vxlan_mode: modes(encap).vxlanMode,
          },
        ],
      });
      expect(await rollout(lab), "maxUnavailable back at 20%, no held annotation").to.deep.equal({
        maxUnavailable: "20%",
        held: undefined,
      });
      // The lab kubelet's status: the backend each calico-node pod runs, and how many are Ready.
      const s = nodesStatus(lab);
      if (!("kind" in s) || s.kind !== "lab-kubelet") throw new Error("the lab runs the stand-in");
      expect(Object.values(s.nodes).map((n) => n.backend)).to.deep.equal([
        backend,
        backend,
        backend,
      ]);
      expect(s.summary.podsReady).to.equal(3);
      if (TUNNEL_POOLS[c.direction] && hasClusterRoutes(calico)) {
        // Felix's path (Calico >= 3.31): no probe lost across the whole chain, kills and re-runs included, but
        // where BIRD rewrites a route on a pair's way while the Felixes take its routes over (bird-rewrites.ts), in
        // the step that turns programClusterRoutes on, from the write of a killed run or of the last run.
        expectNoLoss(p, takeoverSteps(t, last, end), labBirdRewrites(lab.state));
        return;
      }
      // BIRD's path: the pool switch's loss, inside its window.
      expectOutageBelow(p, w.ms, "the longest outage fits in the pool switch window");
      expect(p.lost, "the loss fits in the pool switch window").to.be.at.most(
        (p.rate_pps * w.ms) / 1000,
      );
    });
  }
});
