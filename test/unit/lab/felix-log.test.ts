import { expect } from "chai";
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  felixExitedSince,
  felixMissingDevice,
  felixProgrammedSince,
  felixRestartedSince,
} from "../../support/felix-log.js";

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

const pad = (n: number, w = 2): string => String(n).padStart(w, "0");
/** Felix's timestamp for a moment: local time, milliseconds. */
function felixTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}
const missing = (ms: number): string =>
  `${felixTime(ms)} [ERROR][16234] felix/route_table.go 951: Failed to get link attributes error=interface not present ifaceRegex="^vxlan.calico$" ipVersion=0x4 tableIndex=0`;
const programmed = (ms: number): string =>
  `${felixTime(ms)} [INFO][1] felix/int_dataplane.go 2005: Completed first update to dataplane. secsSinceStart=1.2`;

// Felix writes its local time: these lines are written in it too, so the checks hold in any time zone.
describe("the lab's Felix logs: a device Felix could not find, since a moment", () => {
  const t0 = Date.parse("2026-12-06T02:52:47.000Z");
  let state = "";
  before(() => {
    state = mkdtempSync(join(tmpdir(), "calico-encap-felix-log-"));
    const old = join(state, "nodes", "node-1", "log", "calico-node-old");
    const now = join(state, "nodes", "node-1", "log", "calico-node-new");
    mkdirSync(old, { recursive: true });
    mkdirSync(now, { recursive: true });
    writeFileSync(
      join(old, "felix.log"),
      [programmed(t0 - 60000), missing(t0), missing(t0 + 100)].join("\n"),
    );
    writeFileSync(join(now, "felix.log"), [programmed(t0 + 30000), missing(t0 + 40000)].join("\n"));
    utimesSync(old, new Date(t0), new Date(t0));
    utimesSync(now, new Date(t0 + 30000), new Date(t0 + 30000));
  });

  it("counts the 'interface not present' lines of every pod of the node logged since the moment, not before", () => {
    expect(felixMissingDevice(state, "node-1", "vxlan.calico", t0 - 1)).to.have.length(3);
    expect(felixMissingDevice(state, "node-1", "vxlan.calico", t0 + 20000)).to.have.length(1);
    expect(felixMissingDevice(state, "node-1", "vxlan.calico", t0 + 50000)).to.deep.equal([]);
    expect(felixMissingDevice(state, "node-1", "tunl0", t0 - 1), "another device").to.deep.equal(
      [],
    );
    expect(felixMissingDevice(state, "node-2", "vxlan.calico", 0), "no such node").to.deep.equal(
      [],
    );
  });

  it("finds the newest pod's first dataplane update since the moment", () => {
    expect(felixProgrammedSince(state, "node-1", t0)).to.equal(t0 + 30000);
    expect(felixProgrammedSince(state, "node-1", t0 + 31000)).to.equal(null);
  });
});
