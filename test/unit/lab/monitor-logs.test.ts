import { expect } from "chai";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { labMonitorLogs, monitorLog } from "../../support/monitor-logs.js";

describe("the lab's ip monitor logs", () => {
  it("reads every node's monitor-<node>.log in <state>/log and nothing else there", () => {
    const state = mkdtempSync(join(tmpdir(), "monitor-logs-"));
    try {
      mkdirSync(join(state, "log"));
      writeFileSync(join(state, "log", "monitor-node-2.log"), "two\n");
      writeFileSync(join(state, "log", "monitor-node-1.log"), "one\n");
      writeFileSync(join(state, "log", "felix-node-1.log"), "felix\n");
      writeFileSync(join(state, "log", "monitor.log"), "no node\n");
      expect(labMonitorLogs(state)).to.deep.equal([
        { node: "node-1", log: "one\n" },
        { node: "node-2", log: "two\n" },
      ]);
      expect(monitorLog(state, "node-2")).to.equal("two\n");
      expect(() => monitorLog(state, "node-3")).to.throw(/monitor-node-3\.log/);
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
  });
});
