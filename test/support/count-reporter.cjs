// Mocha reporter: mocha's spec output, plus one JSON line of counts appended to $TEST_COUNTS
// (summed by .ci/run into its closing "N passed, N failed" line).
const fs = require("node:fs");
const path = require("node:path");
const Mocha = require("mocha");

class CountReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const file = process.env.TEST_COUNTS;
      if (!file) return;
      const { passes, failures, pending } = runner.stats ?? this.stats;
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.appendFileSync(
        file,
        JSON.stringify({ passed: passes, failed: failures, skipped: pending }) + "\n",
      );
    });
  }
}

module.exports = CountReporter;
