import { expect } from "chai";
import checkSchema from "../../../schemas/calico_pool_check.options.json" with { type: "json" };
import migrateSchema from "../../../schemas/calico_encap_migrate.options.json" with { type: "json" };
import { checkPools } from "../../../src/calico/check/check.js";
import type { CalicoEncapMigrateResult } from "../../../src/generated/calico_encap_migrate.result.js";
import { optionFlags } from "../../../src/human/flags.js";
import { helpText } from "../../../src/human/help.js";
import { Progress, progressLine } from "../../../src/human/progress.js";
import { renderCheck } from "../../../src/human/render-check.js";
import { renderDiff, renderMigrate, renderPlan } from "../../../src/human/render-migrate.js";
import { COLOUR, PLAIN, styleFor, wantsColour } from "../../../src/human/style.js";
import { migrateCommand } from "../../../src/human/suggest.js";
import { inventory, live218, PINNED_218 } from "../../support/builders.js";

const ESC = "\x1b[";

describe("human front: colour", () => {
  it("only on a TTY, never with NO_COLOR or TERM=dumb", () => {
    expect(wantsColour(true, {})).to.equal(true);
    expect(wantsColour(false, {})).to.equal(false);
    expect(wantsColour(undefined, {})).to.equal(false);
    expect(wantsColour(true, { NO_COLOR: "1" })).to.equal(false);
    expect(wantsColour(true, { NO_COLOR: "" })).to.equal(true);
    expect(wantsColour(true, { TERM: "dumb" })).to.equal(false);
    expect(styleFor(false, {})).to.equal(PLAIN);
  });
});

describe("human front: check output", () => {
  const blocked = checkPools(inventory(), live218());
  const suggestion = migrateCommand(blocked.migration.args, { kubeconfig: "/k/admin.conf" });

  it("shows what was read, the verdict, the module's message and the migrate command", () => {
    const text = renderCheck(blocked, PLAIN, suggestion);
    const lines = text.split("\n");
    expect(lines[0]).to.equal(
      "calico-encap check: Calico v3.32.1 read with calicoctl, backend bird",
    );
    expect(lines[1]).to.equal(
      "  IPPool default-pool 10.233.64.0/18 (ipipMode Always, vxlanMode Never, blockSize 24)",
    );
    expect(text).to.include("BLOCKED: 4 blocking findings\n" + blocked.msg + "\n");
    expect(text).to.include(
      "- IPPool/default-pool spec.ipipMode: cluster has Always, inventory (calico_ipip_mode) says Never",
    );
    expect(text).to.include(
      "  calico-encap migrate --network-backend vxlan --pool-name default-pool --ipip-mode Never --vxlan-mode Always --kubeconfig /k/admin.conf\n",
    );
    expect(text).to.not.include(ESC);
  });

  it("passes in green on a TTY, with no migrate suggestion", () => {
    const pass = checkPools(inventory(PINNED_218), live218());
    const text = renderCheck(pass, COLOUR);
    expect(text).to.include(COLOUR.green(COLOUR.bold("PASSED")));
    expect(text).to.include("The inventory matches the live Calico configuration.");
    expect(text).to.not.include("calico-encap migrate");
  });

  it("shows warnings, and a failure that has no findings as FAILED", () => {
    const warned = checkPools(inventory({ fail_on_mismatch: false }), live218());
    const text = renderCheck(warned, PLAIN);
    expect(text).to.include("PASSED, with warnings");
    expect(text).to.include(`warning: ${warned.warnings[0]}`);
    expect(renderCheck({ failed: true, msg: "calicoctl failed: boom" }, PLAIN)).to.match(
      /^calico-encap check\n\nFAILED\ncalicoctl failed: boom\n/,
    );
  });

  it("carries only options migrate takes into the suggested command", () => {
    expect(
      migrateCommand({ ipip_mode: "Never" }, { ipip_mode: "Always", pool_blocksize: 24 }),
    ).to.equal("calico-encap migrate --ipip-mode Never");
  });
});

const STATE_218 = {
  pools: [{ name: "default-pool", ipip_mode: "Always", vxlan_mode: "Never" }],
  backend: "bird",
};
const STATE_VXLAN = {
  pools: [{ name: "default-pool", ipip_mode: "Never", vxlan_mode: "Always" }],
  backend: "vxlan",
};
const PLAN = [
  { title: "Enable vxlanEnabled in FelixConfiguration default", write: { kind: "felix" } },
  { title: "Switch IPPool default-pool", write: { kind: "pool" } },
];
const MTU = "The encapsulation changed: pods keep their MTU until restarted.";

describe("human front: migrate output", () => {
  const planned: CalicoEncapMigrateResult = {
    changed: true,
    msg: "Would run 2 step(s)",
    plan: PLAN,
    steps: [],
    migrated_from: STATE_218,
    migrated_to: STATE_VXLAN,
    warnings: [MTU],
    diff: {
      before: { "IPPool/default-pool": { ipipMode: "Always", vxlanMode: "Never" } },
      after: { "IPPool/default-pool": { ipipMode: "Never", vxlanMode: "Never" } },
    },
  };
  const done: CalicoEncapMigrateResult = {
    ...planned,
    msg: "Migrated",
    steps: PLAN.map((s, i) => ({ ...s, seconds: 3.25 + i })),
    diff: undefined,
  };

  it("prints the plan before the run: from, to, numbered steps", () => {
    expect(renderPlan(planned, PLAIN)).to.equal(
      [
        "calico-encap migrate: from default-pool ipipMode Always, vxlanMode Never; backend bird",
        "                      to   default-pool ipipMode Never, vxlanMode Always; backend vxlan",
        "Plan, 2 steps:",
        "   1. Enable vxlanEnabled in FelixConfiguration default",
        "   2. Switch IPPool default-pool",
        "",
      ].join("\n"),
    );
  });

  it("prints the steps done with their durations, the state reached and the MTU warning", () => {
    const text = renderMigrate(done, PLAIN, false);
    expect(text).to.equal(
      [
        "Migrated in 2 steps (7.5 s):",
        "   1.   3.3 s  Enable vxlanEnabled in FelixConfiguration default",
        "   2.   4.3 s  Switch IPPool default-pool",
        "Now: default-pool ipipMode Never, vxlanMode Always; backend vxlan",
        "",
        `warning: ${MTU}`,
        "",
      ].join("\n"),
    );
  });

  it("says no change when the cluster already matches", () => {
    const same = { ...done, changed: false, steps: [], plan: [], warnings: undefined };
    expect(renderMigrate(same, PLAIN, false)).to.equal(
      "No change: the cluster already matches the target.\nNow: default-pool ipipMode Never, vxlanMode Always; backend vxlan\n",
    );
  });

  it("with --check: the plan, the changed fields and that nothing was written", () => {
    const text = renderMigrate(planned, PLAIN, true);
    expect(text).to.include("Plan, 2 steps:");
    expect(text).to.include(
      "Diff (fields written):\n  IPPool/default-pool\n    ipipMode: Always -> Never\n",
    );
    expect(text).to.not.include("vxlanMode: Never -> Never");
    expect(text).to.match(/--check: nothing was written\.\n$/);
  });

  it("a failure: the message, the steps done and whether it rolled back", () => {
    const failed = {
      ...done,
      failed: true,
      msg: 'step "Switch IPPool default-pool" did not converge within wait_timeout: node-2 has no VXLAN tunnel address.',
      rolled_back: true,
      migrated_to: STATE_218,
      steps: PLAN.map((s, i) => ({ ...s, seconds: 3.25 + i, settled: i === 0 })),
    };
    const text = renderMigrate(failed, PLAIN, false);
    expect(text.split("\n").slice(0, 2)).to.deep.equal(["FAILED", failed.msg]);
    expect(text).to.include("Steps done (2):");
    expect(text).to.match(/ s {2}Switch IPPool default-pool \(written, did not settle\)\n/);
    expect(text).to.not.include("Enable vxlanEnabled in FelixConfiguration default (written");
    expect(text).to.include("Now: default-pool ipipMode Always, vxlanMode Never; backend bird");
    expect(text).to.include("Rolled back: the cluster is as it was before the first write.");
  });

  it("renders nothing for a missing diff", () => {
    expect(renderDiff(undefined, PLAIN)).to.deep.equal([]);
  });
});

describe("human front: progress", () => {
  const TITLE = "Switch IPPool default-pool to ipipMode Never, vxlanMode Always and wait";
  const MSG = `step 2/4 '${TITLE}': 2 of 3 nodes converged (12 s)`;

  it("prefixes the seconds elapsed", () => {
    expect(progressLine("writing", 12_400)).to.equal("  12 s  writing");
  });

  it("fits the terminal by shortening the quoted title first, keeping the counts", () => {
    const line = progressLine(MSG, 5000, 80);
    expect(line.length).to.equal(79);
    expect(line).to.match(
      /^ {3}5 s {2}step 2\/4 'Switch IPPool.*…': 2 of 3 nodes converged \(12 s\)$/,
    );
    const cut = progressLine("x".repeat(200), 0, 40);
    expect(cut.length).to.equal(39);
    expect(cut.endsWith("…")).to.equal(true);
  });

  function harness(inPlace: boolean) {
    let t = 1000;
    let tick: (() => void) | null = null;
    let stopped = false;
    const out: string[] = [];
    const p = new Progress({ write: (s: string) => out.push(s), columns: 80 }, inPlace, () => t, {
      every: (_ms, fn) => {
        tick = fn;
        return () => (stopped = true);
      },
    });
    return {
      p,
      out,
      advance(ms: number) {
        t += ms;
        tick?.();
      },
      stopped: () => stopped,
    };
  }

  it("on a TTY rewrites one line in place, ticking the seconds while a wait lasts", () => {
    const h = harness(true);
    h.p.update("step 1/2 'A': writing");
    h.advance(3000);
    h.p.update("step 1/2 'A': 3 of 3 nodes converged (3 s)");
    h.p.done();
    expect(h.out).to.deep.equal([
      "\r\x1b[2K   0 s  step 1/2 'A': writing",
      "\r\x1b[2K   3 s  step 1/2 'A': writing",
      "\r\x1b[2K   3 s  step 1/2 'A': 3 of 3 nodes converged (3 s)",
      "\r\x1b[2K",
    ]);
    expect(h.stopped()).to.equal(true);
  });

  it("otherwise writes one line per update", () => {
    const h = harness(false);
    h.p.update("first");
    h.advance(2000);
    h.p.update("second\nthird");
    h.p.done();
    expect(h.out.join("")).to.equal("   0 s  first\n   2 s  second\n   2 s  third\n");
  });
});

describe("human front: --help", () => {
  it("lists every option with its description, default and Kubespray variable", () => {
    const flags = optionFlags(checkSchema);
    const text = helpText("check", checkSchema, flags);
    expect(text).to.match(/^usage: calico-encap check \[flags\]\n/);
    for (const f of flags) expect(text).to.include(`  ${f.flag}`);
    expect(text).to.include("  --nat-outgoing, --no-nat-outgoing\n");
    expect(text).to.include("  --calicoctl-path, --calicoctl PATH\n");
    expect(text.replace(/\s+/g, " ")).to.include(
      "Block size of the IPv4 pool (Kubespray calico_pool_blocksize). Immutable in Calico. [default: 26; --vars: calico_pool_blocksize]",
    );
    expect(text).to.not.include("--check");
    expect(
      text.split("\n").every((l) => l.length <= 80 || l.startsWith("  calico-encap")),
    ).to.equal(true);
  });

  it("shows --check and --diff for migrate", () => {
    const text = helpText("migrate", migrateSchema, optionFlags(migrateSchema));
    expect(text).to.include("  --check\n");
    expect(text).to.include("  --diff\n");
    expect(text).to.include("  --wait-timeout N\n");
  });
});
