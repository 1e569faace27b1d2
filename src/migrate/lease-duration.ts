// How long a migration's Lease lasts unrenewed (its leaseDurationSeconds): the longest stretch of a run between two
// renewals, with every command in it taking all the time it is allowed. Pure.

import { KILL_AFTER, batchTimeout } from "../cluster/runner.js";
import { MOST_COMMANDS_PER_WRITE } from "../cluster/write.js";
import type { LockTiming } from "./io.js";

/**
 * The longest stretch without a renewal, in seconds: the renewal right before a write (its change may land as its
 * command starts), the write's commands one after the other (MOST_COMMANDS_PER_WRITE), the wait_sleep before the
 * next poll, and that poll's batch, whose renewal may land only as the batch ends. A command may run for
 * command_timeout, then KILL_AFTER more until `timeout -k` kills it. With less, the Lease could lapse in the middle
 * of a write, and another run take it over and write at the same time.
 */
export function leaseDurationSeconds(commandTimeout: number, waitSleep: number): number {
  const command = commandTimeout + KILL_AFTER;
  const poll = batchTimeout([{ argv: [], timeoutSeconds: commandTimeout }]);
  return command + MOST_COMMANDS_PER_WRITE * command + waitSleep + poll;
}

/** The Lease's timing from calico_encap_migrate's options. */
export function lockTiming(p: {
  command_timeout: number;
  wait_sleep: number;
  wait_timeout: number;
}): LockTiming {
  return {
    durationSeconds: leaseDurationSeconds(p.command_timeout, p.wait_sleep),
    maxWatchSeconds: p.wait_timeout,
    pollSeconds: p.wait_sleep,
  };
}
