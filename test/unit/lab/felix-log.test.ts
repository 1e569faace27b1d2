import { expect } from "chai";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { felixExitedSince, felixRestartedSince } from "../../support/felix-log.js";

// Lines as the lab's kubelet and the real Felix v3.31.0 logged them (2026-12-05, the CI's lab-can-fail run).
function lab(felix: string[]): string {
  const state = mkdtempSync(join(tmpdir(), "calico-encap-felix-log-"));
  mkdirSync(join(state, "log"));
  writeFileSync(
    join(state, "log", "kubelet.log"),
    [
      "2026-12-05T23:49:30.000Z node-1: felix exited (code 129); runit restarts it",
      "2026-12-05T23:49:38.397Z node-1: felix exited (code 129); runit restarts it",
    ].join("\n"),
  );
  const pod = join(state, "nodes", "node-1", "log", "calico-node-n5g69");
  mkdirSync(pod, { recursive: true });
  writeFileSync(join(pod, "felix.log"), felix.join("\n"));
  return state;
}

const at = (iso: string): number => Date.parse(iso);

describe("Felix's restarts in the lab's logs (kubesprayDocumentedSteps waits them out)", () => {
  it("finds the restart after a write, and whether the new Felix has programmed the dataplane since", () => {
    const done = lab([
      "2026-12-05 23:49:31.500 [INFO][1] felix/int_dataplane.go 2307: Completed first update to dataplane. secsSinceStart=0.2",
      "2026-12-05 23:49:46.006 [INFO][23123] felix/int_dataplane.go 2307: Completed first update to dataplane. secsSinceStart=0.237959687",
    ]);
    const write = at("2026-12-05T23:49:36");
    expect(felixExitedSince(done, "node-1", write)).to.equal(at("2026-12-05T23:49:38.397Z"));
    expect(felixRestartedSince(done, "node-1", write)).to.equal(true);
    expect(felixRestartedSince(done, "node-2", write), "no such node").to.equal(false);
  });

  it("is not done while the new Felix has not programmed the dataplane, nor before it restarted at all", () => {
    const pending = lab([
      "2026-12-05 23:49:31.500 [INFO][1] felix/int_dataplane.go 2307: Completed first update to dataplane. secsSinceStart=0.2",
    ]);
    expect(felixRestartedSince(pending, "node-1", at("2026-12-05T23:49:36"))).to.equal(false);
    expect(felixRestartedSince(pending, "node-1", at("2026-12-05T23:49:40"))).to.equal(false);
  });
});
