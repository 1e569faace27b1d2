// Progress lines name the first few nodes and count the rest (issue 40: at 1000 nodes a whole list was about 10 KB a
// line, every poll).

import { expect } from "chai";
import { felixRestartPending } from "../../../src/calico/plan/felix-restart.js";
import { NAMES_SHOWN, someNames } from "../../../src/calico/shared/names.js";

const sims = (n: number): string[] =>
  Array.from({ length: n }, (_, i) => `sim-${String(i + 1).padStart(4, "0")}`);

describe("node names in progress messages", () => {
  it("names every node up to NAMES_SHOWN, then the first ones and how many more", () => {
    expect(someNames([])).to.equal("");
    expect(someNames(["node-1", "node-2"])).to.equal("node-1, node-2");
    expect(someNames(sims(NAMES_SHOWN))).to.equal(sims(NAMES_SHOWN).join(", "));
    expect(someNames(sims(1000))).to.equal(
      `${sims(NAMES_SHOWN).join(", ")} and ${1000 - NAMES_SHOWN} more (1000 in all)`,
    );
    expect(someNames(sims(3), 2)).to.equal("sim-0001, sim-0002 and 1 more (3 in all)");
  });

  it("keeps a wait's Felix line short at a thousand nodes", () => {
    const line = felixRestartPending(
      { cause: "tunnel address", nodes: sims(1000), at: 0, seconds: 5 },
      1000,
    );
    expect(line).to.include("sim-0010 and 990 more (1000 in all)");
    expect(line?.length ?? 0).to.be.below(400);
  });
});
