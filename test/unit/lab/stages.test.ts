// make test's plumbing: test/stage.sh times a stage and records it; test/lab-queue.sh hands each lab test file to
// exactly one of the two lab slots, and a slot reports the files that failed.

import { expect } from "chai";
import { execa } from "execa";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO } from "../../support/ansible.js";

const STAGE = join(REPO, "test", "stage.sh");
const QUEUE = join(REPO, "test", "lab-queue.sh");
const TIMES = join(REPO, "test", "times.sh");
const REPORTER = join(REPO, "test", "support", "count-reporter.cjs");

describe("make test's stages and lab queue", () => {
  it("stage.sh prints and records a stage's time and outcome, and keeps its exit status", async () => {
    const dir = mkdtempSync(join(tmpdir(), "calico-encap-stage-"));
    const times = join(dir, "times.tsv");
    const ok = await execa("bash", [STAGE, "fine", "true"], { env: { STAGE_TIMES: times } });
    const bad = await execa("bash", [STAGE, "broken", "false"], {
      env: { STAGE_TIMES: times },
      reject: false,
    });
    expect(ok.stdout).to.match(/== stage fine: passed in \d+ s$/m);
    expect(bad.exitCode).to.equal(1);
    expect(bad.stdout).to.match(/== stage broken: failed in \d+ s$/m);
    const rows = readFileSync(times, "utf8")
      .trim()
      .split("\n")
      .map((l) => l.split("\t"));
    expect(rows.map((r) => [r[1], r[3]])).to.deep.equal([
      ["fine", "passed"],
      ["broken", "failed"],
    ]);
  });

  it("two slots taking from one queue run every entry once, with its variables, and name the failed ones", async () => {
    const dir = mkdtempSync(join(tmpdir(), "calico-encap-queue-"));
    const queue = join(dir, "queue");
    const ran = join(dir, "ran");
    // A stand-in for mocha: records the file, its TOUR_FROM and the slot's environment, fails on "bad".
    const fake = join(dir, "fake-mocha.sh");
    writeFileSync(
      fake,
      `#!/bin/bash\nf=\${@: -1}\nsleep 0.1\necho "$f \${TOUR_FROM:-} $SLOT_NAME" >>${ran}\n[ "$f" != bad ]\n`,
    );
    const entries = ["a||one", "b|TOUR_FROM=21|two", "c||bad", "d||three", "e||four"];
    await execa("bash", [QUEUE, "fill", queue, ...entries]);
    const env = (slot: string) => ({
      MOCHA: `bash ${fake}`,
      STAGE_TIMES: join(dir, "times.tsv"),
      SLOT_NAME: slot,
    });
    const [a, b] = await Promise.all([
      execa("bash", [QUEUE, "run", queue, "slot a"], { env: env("A"), reject: false }),
      execa("bash", [QUEUE, "run", queue, "slot b"], { env: env("B"), reject: false }),
    ]);
    const lines = readFileSync(ran, "utf8").trim().split("\n");
    expect(lines.map((l) => l.split(" ")[0]).sort()).to.deep.equal([
      "bad",
      "four",
      "one",
      "three",
      "two",
    ]);
    expect(lines.find((l) => l.startsWith("two "))).to.match(/^two 21 [AB]$/);
    expect(new Set(lines.map((l) => l.split(" ").at(-1))).size, "both slots took files").to.equal(
      2,
    );
    const failed = [a, b].filter((r) => r.exitCode !== 0);
    expect(failed).to.have.length(1);
    expect(failed[0]?.stdout).to.match(/slot [ab]: failed: c$/m);
    expect(readFileSync(queue, "utf8")).to.equal("");
  });

  it("an entry that waits on a build runs only once the build is done, the others first; a failed build fails it without running it", async function () {
    this.timeout(20000);
    const dir = mkdtempSync(join(tmpdir(), "calico-encap-queue-built-"));
    const queue = join(dir, "queue");
    const ran = join(dir, "ran");
    const fake = join(dir, "fake-mocha.sh");
    writeFileSync(fake, `#!/bin/bash\necho "\${@: -1}\${LAB_CALICO:+ $LAB_CALICO}" >>${ran}\n`);
    const env = {
      MOCHA: `bash ${fake}`,
      STAGE_TIMES: join(dir, "times.tsv"),
      LAB_QUEUE_POLL: "0.2",
    };
    await execa("bash", [
      QUEUE,
      "fill",
      queue,
      "seed|LAB_CALICO=v3.22.0|seed-file|seed-era",
      "a||one",
      "b||two",
    ]);
    // Nothing but the waiting entry left: take says so (3) and leaves it.
    const slot = execa("bash", [QUEUE, "run", queue, "slot a"], { env, reject: false });
    try {
      await new Promise((r) => setTimeout(r, 1500));
      expect(readFileSync(ran, "utf8").trim().split("\n")).to.deep.equal(["one", "two"]);
      expect(readFileSync(queue, "utf8")).to.equal("seed|LAB_CALICO=v3.22.0|seed-file|seed-era\n");
      await execa("bash", [QUEUE, "built", queue, "seed-era", "done"]);
    } finally {
      setTimeout(() => slot.kill("SIGKILL"), 5000).unref();
    }
    const a = await slot;
    expect(a.exitCode, a.stdout).to.equal(0);
    expect(readFileSync(ran, "utf8").trim().split("\n")).to.deep.equal([
      "one",
      "two",
      "seed-file v3.22.0",
    ]);
    // A failed build: its entry fails at once, naming the build, and its file never runs.
    await execa("bash", [QUEUE, "fill", queue, "seed||seed-file|seed-era"]);
    await execa("bash", [QUEUE, "built", queue, "seed-era", "failed"]);
    const b = await execa("bash", [QUEUE, "run", queue, "slot b"], { env, reject: false });
    expect(b.exitCode).to.equal(1);
    expect(b.stdout).to.match(/slot b: failed: seed$/m);
    expect(b.stderr).to.include("the seed-era build failed");
    expect(readFileSync(ran, "utf8").trim().split("\n")).to.have.length(3);
  });

  it("the count reporter records each failed test with its error's first lines; times.sh prints them last", async function () {
    // Two processes (mocha, bash) started on a machine the lab stages may be loading.
    this.timeout(20000);
    const dir = mkdtempSync(join(tmpdir(), "calico-encap-failures-"));
    const spec = join(dir, "probe.test.cjs");
    writeFileSync(
      spec,
      [
        'const assert = require("node:assert");',
        'describe("a lab", function () {',
        '  it("loses nothing", function () { assert.fail("no probe lost: by pair {\\"node-3.host -> node-2\\":1}\\n" + "more\\n".repeat(30)); });',
        '  it("passes", function () {});',
        "});",
      ].join("\n"),
    );
    const env = {
      TEST_FAILURES: join(dir, "failures.txt"),
      STAGE_TIMES: join(dir, "stages.tsv"),
      FILE_TIMES: join(dir, "files.tsv"),
      TEST_COUNTS: join(dir, "counts.jsonl"),
    };
    const mocha = join(REPO, "node_modules", ".bin", "mocha");
    const run = await execa(mocha, ["--reporter", REPORTER, spec], {
      cwd: dir,
      env,
      reject: false,
    });
    expect(run.exitCode).to.equal(1);
    const failures = readFileSync(env.TEST_FAILURES, "utf8").split("\n");
    expect(failures[0]).to.equal("  probe.test.cjs: a lab loses nothing");
    expect(failures[1]).to.equal('    no probe lost: by pair {"node-3.host -> node-2":1}');
    expect(failures.filter((l) => l.trim() === "more")).to.have.length(11);
    await execa("bash", [STAGE, "slot a: real-calico-node", "false"], { env, reject: false });
    const times = (await execa("bash", [TIMES], { env })).stdout.split("\n");
    const at = times.indexOf("Failed tests (file: title, then the first lines of the error):");
    expect(at, times.join("\n")).to.be.greaterThan(
      times.findIndex((l) => l.startsWith("Test files")),
    );
    expect(times[at + 1]).to.equal("  probe.test.cjs: a lab loses nothing");
  });
});
