// Mocha reporter: mocha's spec output, plus one JSON line of counts appended to $TEST_COUNTS
// (summed by .ci/run into its closing "N passed, N failed" line), and each test file's time (its top-level
// suites, hooks included) appended to $FILE_TIMES as "<ISO time>\t<file>\t<seconds>\t<passed>\t<failed>", which
// `make test-times` prints beside the stages' times, and each failed test (its file, title and the first lines of
// its error) appended to $TEST_FAILURES, which `make test-times` prints last, so a CI log's tail says what failed.
const fs = require("node:fs");
const path = require("node:path");
const Mocha = require("mocha");

const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_TEST_PASS, EVENT_TEST_FAIL } =
  Mocha.Runner.constants;

// How many lines of a failed test's error message $TEST_FAILURES keeps.
const FAILURE_LINES = 12;

function append(file, line) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.appendFileSync(file, line + "\n");
}

class CountReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    // Per file: when its first top-level suite began, and its tests' outcomes.
    const files = new Map();
    const fileOf = (runnable) => {
      let s = runnable.parent ?? runnable;
      while (s && !s.file && s.parent) s = s.parent;
      return s?.file ?? runnable.file;
    };
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (!suite.file || files.has(suite.file)) return;
      files.set(suite.file, { start: Date.now(), end: Date.now(), passed: 0, failed: 0 });
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      const f = suite.file && files.get(suite.file);
      if (f) f.end = Date.now();
    });
    const count = (key) => (test) => {
      const f = files.get(fileOf(test));
      if (f) f[key] += 1;
    };
    runner.on(EVENT_TEST_PASS, count("passed"));
    // A failed hook fails the file too.
    runner.on(EVENT_TEST_FAIL, count("failed"));
    runner.on(EVENT_TEST_FAIL, (test, err) => {
      const failures = process.env.TEST_FAILURES;
      if (!failures) return;
      const file = fileOf(test);
      const message = String(err?.message ?? err)
        .split("\n")
        .slice(0, FAILURE_LINES)
        .map((l) => `    ${l.slice(0, 400)}`);
      append(
        failures,
        [
          `  ${file ? path.relative(process.cwd(), file) : "?"}: ${test.fullTitle()}`,
          ...message,
        ].join("\n"),
      );
    });
    runner.once(EVENT_RUN_END, () => {
      const times = process.env.FILE_TIMES;
      if (times) {
        const cwd = process.cwd();
        for (const [file, f] of files) {
          const secs = ((f.end - f.start) / 1000).toFixed(1);
          append(
            times,
            [
              new Date(f.end).toISOString(),
              path.relative(cwd, file),
              secs,
              f.passed,
              f.failed,
            ].join("\t"),
          );
        }
      }
      const file = process.env.TEST_COUNTS;
      if (!file) return;
      const { passes, failures, pending } = runner.stats ?? this.stats;
      append(file, JSON.stringify({ passed: passes, failed: failures, skipped: pending }));
    });
  }
}

module.exports = CountReporter;
