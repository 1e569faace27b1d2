// The pool switch, defined once (src/calico/shared/pool-switch.ts): which encapsulation a pool enters, and whether
// its change is a switch between IPIP and VXLAN, for every pair of modes.

import { expect } from "chai";
import { ENCAP_MODES, isOn } from "../../../src/calico/shared/model.js";
import type { PoolModes } from "../../../src/calico/shared/pool-switch.js";
import { encapEntered, switchedInto, turnsOn } from "../../../src/calico/shared/pool-switch.js";

const m = (ipipMode: PoolModes["ipipMode"], vxlanMode: PoolModes["vxlanMode"]): PoolModes => ({
  ipipMode,
  vxlanMode,
});
const ALL: PoolModes[] = ENCAP_MODES.flatMap((i) => ENCAP_MODES.map((v) => m(i, v)));
/** The pools Calico accepts: never both modes on. */
const VALID = ALL.filter((p) => !(isOn(p.ipipMode) && isOn(p.vxlanMode)));
const NONE = m("Never", "Never");

describe("the pool switch", () => {
  it("enters an encapsulation whose mode turns on, whatever the pool had", () => {
    expect(turnsOn(NONE, m("Never", "Always"), "vxlan")).to.equal(true);
    expect(turnsOn(m("Always", "Never"), m("Never", "CrossSubnet"), "vxlan")).to.equal(true);
    expect(turnsOn(m("Never", "Always"), m("Never", "CrossSubnet"), "vxlan")).to.equal(false);
    expect(turnsOn(m("Never", "Always"), m("Always", "Never"), "vxlan")).to.equal(false);
    expect(encapEntered(NONE, m("Never", "Always"))).to.equal("vxlan");
    expect(encapEntered(m("Never", "Always"), m("CrossSubnet", "Never"))).to.equal("ipip");
    expect(encapEntered(m("Always", "Never"), m("CrossSubnet", "Never"))).to.equal(null);
    expect(encapEntered(m("Always", "Never"), NONE)).to.equal(null);
    // Both turning on (Calico refuses such a pool): VXLAN first.
    expect(encapEntered(NONE, m("Always", "Always"))).to.equal("vxlan");
  });

  it("switches only with one encapsulation on before and the other on after", () => {
    expect(switchedInto(m("Always", "Never"), m("Never", "Always"))).to.equal("vxlan");
    expect(switchedInto(m("Never", "CrossSubnet"), m("CrossSubnet", "Never"))).to.equal("ipip");
    expect(switchedInto(m("Always", "Never"), m("CrossSubnet", "Never"))).to.equal(null);
    expect(switchedInto(NONE, m("Never", "Always"))).to.equal(null);
    expect(switchedInto(m("Never", "Always"), NONE)).to.equal(null);
    expect(switchedInto(m("Always", "Never"), m("Always", "Never"))).to.equal(null);
  });

  it("of the pools Calico accepts, a switch is an entering of the same encapsulation, and they differ only out of no encapsulation", () => {
    for (const before of VALID)
      for (const after of VALID) {
        const into = switchedInto(before, after);
        const entered = encapEntered(before, after);
        const at = JSON.stringify([before, after]);
        if (into !== null) expect(entered, at).to.equal(into);
        if (into !== entered) expect(before, at).to.deep.equal(NONE);
      }
  });
});
