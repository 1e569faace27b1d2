import { expect } from "chai";
import { proberFigures } from "../../support/builders.js";
import {
  BACKEND_ROLL_STEP,
  expectBelowYardstick,
  expectLossInPoolSwitch,
  lossOutsideStep,
  poolSwitchTitle,
  TUNNEL_POOL_STEP,
  type ProberFigures,
} from "../../support/lab.js";

// A migration into VXLAN with tunnel_pool_cidr, as calico_encap_migrate reports its steps.
const STEPS = [
  {
    title: "Enable vxlanEnabled in FelixConfiguration default",
    seconds: 8,
    written_at: "2026-12-02T05:52:30.000Z",
  },
  {
    title:
      "Create IPPool default-pool-vxlan-tunnel (172.30.0.0/24, VXLAN, Tunnel only) and wait until every node has its VXLAN tunnel address from it",
    seconds: 10,
    written_at: "2026-12-02T05:52:40.000Z",
  },
  {
    title:
      "Switch IPPool default-pool to ipipMode Never, vxlanMode CrossSubnet and wait for every node's tunnel address",
    seconds: 10,
    written_at: "2026-12-02T05:52:58.563Z",
  },
];

const figures = (
  lost: number,
  first: string | null,
  last: string | null,
  gap: number,
): ProberFigures => proberFigures(lost, first, last, gap, 55164);

describe("where a migration's lost probes may lie (the tunnel pool's creation, BIRD's refeed)", () => {
  // The cold fresh-clone run of 2026-12-02: the first lost probe during the tunnel pool's creation.
  const refeed = figures(34, "2026-12-02T05:52:49.135Z", "2026-12-02T05:52:59.062Z", 98);

  it("the pool switch step alone does not hold loss that began in the tunnel pool's creation", () => {
    expect(lossOutsideStep(refeed, STEPS, poolSwitchTitle())).to.match(
      /during 'Create IPPool default-pool-vxlan-tunnel .*'\) to .*; step 'Switch IPPool default-pool/,
    );
    expect(() => expectLossInPoolSwitch(refeed, STEPS)).to.throw(
      /every lost probe was sent during the pool switch step/,
    );
  });

  it("from the tunnel pool's creation to the end of the pool switch it does; the gap stays bound to the switch", () => {
    expect(TUNNEL_POOL_STEP.test(STEPS[1]?.title ?? "")).to.equal(true);
    expect(lossOutsideStep(refeed, STEPS, poolSwitchTitle(), TUNNEL_POOL_STEP)).to.equal(null);
    expect(expectLossInPoolSwitch(refeed, STEPS, poolSwitchTitle(), TUNNEL_POOL_STEP)).to.equal(
      11000,
    );
    expect(() =>
      expectLossInPoolSwitch(
        figures(34, "2026-12-02T05:52:49.135Z", "2026-12-02T05:52:59.062Z", 11500),
        STEPS,
        poolSwitchTitle(),
        TUNNEL_POOL_STEP,
      ),
    ).to.throw(/the longest outage fits in the pool switch step/);
  });

  // The tour of 2026-12-03 13:52 (at load 16): none/bird -> VXLAN Always/bird with the tunnel pool an earlier pair
  // had created, so the run wrote no tunnel pool step; 5 probes lost during the pool switch.
  it("a run without the tunnel pool's step (the pool existed already) is held to the pool switch step alone", () => {
    const existed = STEPS.filter((s) => !TUNNEL_POOL_STEP.test(s.title));
    const inSwitch = figures(5, "2026-12-02T05:53:00.000Z", "2026-12-02T05:53:00.100Z", 111);
    expect(lossOutsideStep(inSwitch, existed, poolSwitchTitle(), TUNNEL_POOL_STEP)).to.equal(null);
    expect(expectLossInPoolSwitch(inSwitch, existed, poolSwitchTitle(), TUNNEL_POOL_STEP)).to.equal(
      11000,
    );
    const early = figures(5, "2026-12-02T05:52:35.000Z", "2026-12-02T05:52:35.100Z", 111);
    expect(lossOutsideStep(early, existed, poolSwitchTitle(), TUNNEL_POOL_STEP)).to.match(
      /during 'Enable vxlanEnabled in FelixConfiguration default'.*; step 'Switch IPPool default-pool/,
    );
  });

  // The fresh-clone CI run of 2026-12-03 14:51: the in-place yardstick lost probes from its pool switch into the
  // backend's roll.
  it("with `to`, loss that runs on into a later step (the backend's roll) lies inside; without it, outside", () => {
    const roll = [
      ...STEPS,
      {
        title: "Switch calico-config to backend vxlan and roll calico-node",
        seconds: 20,
        written_at: "2026-12-02T05:53:20.000Z",
      },
    ];
    const into = figures(40, "2026-12-02T05:53:00.000Z", "2026-12-02T05:53:30.000Z", 3000);
    expect(lossOutsideStep(into, roll, poolSwitchTitle())).to.match(
      /during 'Switch calico-config to backend vxlan and roll calico-node'\); step 'Switch IPPool/,
    );
    expect(
      lossOutsideStep(into, roll, poolSwitchTitle(), poolSwitchTitle(), BACKEND_ROLL_STEP),
    ).to.equal(null);
    expect(
      expectLossInPoolSwitch(into, roll, poolSwitchTitle(), poolSwitchTitle(), BACKEND_ROLL_STEP),
    ).to.equal(11000);
    // A run without that step keeps the pool switch's end.
    expect(
      lossOutsideStep(into, STEPS, poolSwitchTitle(), poolSwitchTitle(), BACKEND_ROLL_STEP),
    ).to.match(/outside every step/);
  });

  it("loss before the tunnel pool's creation (during the Felix flag's step) lies outside both", () => {
    const early = figures(5, "2026-12-02T05:52:35.000Z", "2026-12-02T05:52:59.000Z", 60);
    expect(lossOutsideStep(early, STEPS, poolSwitchTitle(), TUNNEL_POOL_STEP)).to.match(
      /during 'Enable vxlanEnabled in FelixConfiguration default'/,
    );
    expect(() =>
      expectLossInPoolSwitch(early, STEPS, poolSwitchTitle(), TUNNEL_POOL_STEP),
    ).to.throw(/every lost probe was sent during the steps from/);
  });
});

describe("a lossy migration against the same run's in-place yardstick (issue 37, item 10)", () => {
  // The pool switch step of the migration back to IPIP: 10 s (STEPS' last), its window 11 s.
  const back = (lost: number, gap: number): ProberFigures =>
    figures(lost, "2026-12-02T05:52:59.000Z", "2026-12-02T05:53:08.000Z", gap);
  // The in-place switch into VXLAN of the same run (README's figures: 4007-4162 lost at 1200/s, gap 3.4-3.6 s).
  const inPlace = figures(4100, "2026-12-02T05:50:01.000Z", "2026-12-02T05:50:05.000Z", 3500);

  it("a blackout of the whole step passes the window but not the yardstick", () => {
    // Every pair lost every probe for 10 s: 12000 at 1200/s, gap 10 s, all inside the 11 s window.
    const blackout = back(12000, 10000);
    expect(expectLossInPoolSwitch(blackout, STEPS)).to.equal(11000);
    expect(() => expectBelowYardstick(blackout, inPlace, "VXLAN -> IPIP")).to.throw(
      /VXLAN -> IPIP: 12000 lost at 1200 probes\/s, against the in-place yardstick's 4100/,
    );
  });

  it("BIRD's handover (a kernel scan of 2 s on some pairs) passes both", () => {
    const handover = back(1493, 2000);
    expect(expectLossInPoolSwitch(handover, STEPS)).to.equal(11000);
    expectBelowYardstick(handover, inPlace, "VXLAN -> IPIP");
  });

  it("compares seconds of the whole rate, and refuses a missing or lossless yardstick", () => {
    const slower = { ...back(3000, 2000), rate_pps: 600 };
    expect(() => expectBelowYardstick(slower, inPlace, "x")).to.throw(/3000 lost at 600/);
    expect(() => expectBelowYardstick(back(10, 50), null, "x")).to.throw(/the yardstick ran first/);
    expect(() => expectBelowYardstick(back(10, 50), back(0, 0), "x")).to.throw(/not vacuous/);
  });
});
