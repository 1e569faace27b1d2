import { expect } from "chai";
import {
  FELIX_RESTART_SECONDS,
  FELIX_TAKEOVER_SECONDS,
  felixRestartPending,
  laterRestart,
  restartAfterTunnelChange,
  restartAfterWrite,
} from "../../../src/calico/plan/felix-restart.js";

describe("Felix's restarts the wait after a write holds for", () => {
  it("holds longer for the write that turns programClusterRoutes on than for the encapsulation flags alone", () => {
    const takeover = restartAfterWrite(
      { kind: "felix", set: { vxlanEnabled: true, programClusterRoutes: "Enabled" } },
      1000,
    );
    expect(takeover).to.deep.equal({
      cause: "takeover",
      at: 1000,
      nodes: [],
      seconds: FELIX_TAKEOVER_SECONDS,
    });
    expect(
      restartAfterWrite(
        { kind: "felix", set: { ipipEnabled: false, programClusterRoutes: null } },
        0,
      ),
    ).to.deep.include({ cause: "encapsulation", seconds: FELIX_RESTART_SECONDS });
    expect(
      restartAfterWrite(
        {
          kind: "pool",
          pool: "p",
          from: { ipipMode: "Always", vxlanMode: "Never" },
          set: { ipipMode: "Never", vxlanMode: "Always" },
        },
        0,
      ),
    ).to.equal(null);
    expect(FELIX_TAKEOVER_SECONDS).to.be.greaterThan(FELIX_RESTART_SECONDS);
  });

  it("keeps the takeover's dwell when a tunnel address change seen meanwhile would end sooner", () => {
    const takeover = restartAfterWrite(
      { kind: "felix", set: { programClusterRoutes: "Enabled" } },
      0,
    );
    const tunnel = restartAfterTunnelChange(["node-2"], 2000);
    expect(tunnel).to.deep.equal({
      cause: "tunnel address",
      at: 2000,
      nodes: ["node-2"],
      seconds: FELIX_RESTART_SECONDS,
    });
    expect(laterRestart(takeover, tunnel)).to.equal(takeover);
    const late = restartAfterTunnelChange(["node-2"], 9000);
    expect(laterRestart(takeover, late)).to.equal(late);
    expect(laterRestart(null, tunnel)).to.equal(tunnel);
  });

  it("says what it waits for and how long is left, and nothing once the dwell is over", () => {
    const takeover = restartAfterWrite(
      { kind: "felix", set: { programClusterRoutes: "Enabled" } },
      0,
    );
    expect(felixRestartPending(takeover, 3000)).to.match(
      /^Felix restarting on every node after programClusterRoutes was turned on, to take the IPIP routes over from BIRD \(9 s left;/,
    );
    expect(felixRestartPending(takeover, FELIX_TAKEOVER_SECONDS * 1000)).to.equal(null);
    expect(felixRestartPending(restartAfterTunnelChange(["node-1", "node-3"], 0), 1000)).to.match(
      /^Felix restarting on node-1, node-3 after its tunnel address changed \(4 s left;/,
    );
    const encapsulation = restartAfterWrite({ kind: "felix", set: { vxlanEnabled: true } }, 0);
    expect(felixRestartPending(encapsulation, 0)).to.match(
      /after its encapsulation changed \(5 s left;/,
    );
  });
});
