// Loaded by every mocha run (Makefile's MOCHA): chai prints whole values in failed assertions. Its default cuts
// them at 40 characters, which hid where a traffic assertion's lost probes lay.
import { config } from "chai";

config.truncateThreshold = 0;

/**
 * After a failed test the labs this mocha process stops keep their logs (Felix's, BIRD's, confd's, the kubelet's and
 * each node's `ip monitor` of links, routes and neighbours) in .cache/lab-logs, unless LAB_KEEP_LOGS names another
 * folder: a loss seen once under load can then be read against what each node's kernel and agents did at that time.
 */
export const mochaHooks = {
  afterEach(this: { currentTest?: { state?: string } }): void {
    if (this.currentTest?.state === "failed") process.env.CALICO_ENCAP_TEST_FAILED = "1";
  },
};
