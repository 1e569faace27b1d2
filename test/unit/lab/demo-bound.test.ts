import { expect } from "chai";
import { proberFigures } from "../../support/builders.js";
import { migrationResult } from "../../lab/demo-bound.js";
import { expectLossInPoolSwitch, type ProberFigures } from "../../support/lab.js";

const STEPS = [
  {
    title: "Enable vxlanEnabled in FelixConfiguration default",
    seconds: 7,
    written_at: "2026-12-01T05:00:00.000Z",
  },
  {
    title:
      "Switch IPPool default-pool to ipipMode Never, vxlanMode Always and wait for every node's tunnel address",
    seconds: 4,
    written_at: "2026-12-01T05:00:10.000Z",
  },
];

/** ansible-playbook -v's output around the migration's result, as the default callback prints it. */
const OUTPUT = [
  "TASK [calico_encap : Move the live cluster to the inventory's Calico encapsulation] ***",
  `changed: [node-1 -> node-1] => ${JSON.stringify({ changed: true, steps: STEPS, msg: "migrated" })}`,
  'ok: [node-1] => {"msg": "migrated"}',
].join("\n");

const figures = (
  lost: number,
  first: string | null,
  last: string | null,
  gap: number,
): ProberFigures => proberFigures(lost, first, last, gap);

describe("make demo's bound on the prober's figure", () => {
  it("finds the migration's steps in ansible-playbook's output, and nothing in other output", () => {
    expect(migrationResult(OUTPUT)?.steps).to.deep.equal(STEPS);
    expect(migrationResult('ok: [node-1] => {"msg": "hello"}\nPLAY RECAP')).to.equal(null);
  });

  it("holds loss sent during the pool switch step, and fails loss before it or a gap longer than it", () => {
    const steps = migrationResult(OUTPUT)?.steps ?? [];
    expect(
      expectLossInPoolSwitch(
        figures(8, "2026-12-01T05:00:10.300Z", "2026-12-01T05:00:10.600Z", 430),
        steps,
      ),
    ).to.equal(5000);
    expect(() =>
      expectLossInPoolSwitch(
        figures(8, "2026-12-01T05:00:03.000Z", "2026-12-01T05:00:10.600Z", 430),
        steps,
      ),
    ).to.throw(/every lost probe was sent during the pool switch step/);
    expect(() =>
      expectLossInPoolSwitch(
        figures(8, "2026-12-01T05:00:10.300Z", "2026-12-01T05:00:10.600Z", 5200),
        steps,
      ),
    ).to.throw(/the longest outage fits in the pool switch step/);
  });
});
