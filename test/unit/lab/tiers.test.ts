// The tiers of the lab suite: which tier a run is, and that the quick tier's walk keeps one transition of each
// class (make test relies on it; make test-full walks all 42 pairs).

import { expect } from "chai";
import {
  QUICK_WALK,
  STATES,
  TRANSITION_CLASSES,
  state,
  transitionClass,
} from "../../support/lab-states.js";
import { tierOf } from "../../support/tier.js";

describe("the lab suite's tiers", () => {
  it("reads CALICO_ENCAP_TIER: unset or quick is quick, full is full, anything else is an error", () => {
    expect(tierOf(undefined)).to.equal("quick");
    expect(tierOf("")).to.equal("quick");
    expect(tierOf("quick")).to.equal("quick");
    expect(tierOf("full")).to.equal("full");
    expect(() => tierOf("fast")).to.throw("CALICO_ENCAP_TIER must be quick or full, got 'fast'");
  });

  it("classes every one of the 42 ordered pairs, and every class has pairs", () => {
    const counts = new Map<string, number>();
    for (const from of STATES)
      for (const to of STATES)
        if (from !== to) {
          const c = transitionClass(from, to);
          counts.set(c, (counts.get(c) ?? 0) + 1);
        }
    expect(Object.fromEntries(counts)).to.deep.equal({
      "into VXLAN": 12,
      "out of VXLAN": 12,
      "among BIRD states": 6,
      "backend switch under VXLAN": 4,
      "Always <-> CrossSubnet under VXLAN": 8,
    });
  });

  it("the quick walk starts on the lab's start state and takes each class once", () => {
    expect(QUICK_WALK[0]).to.equal(STATES[0]);
    const classes = QUICK_WALK.slice(1).map((to, i) => transitionClass(QUICK_WALK[i]!, to));
    expect(classes).to.have.members(TRANSITION_CLASSES);
    expect(classes).to.have.length(TRANSITION_CLASSES.length);
  });

  it("names an unknown state as an error, with the states there are", () => {
    expect(() => state("VXLAN Sometimes/bird")).to.throw(
      /no lab state 'VXLAN Sometimes\/bird' \(one of: IPIP Always\/bird/,
    );
  });
});
