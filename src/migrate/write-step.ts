// One write of a run: the Lease renewed right before it, the step reported from the moment it is sent.

import type { Write } from "../calico/plan/plan.js";
import { LockLost } from "../cluster/lock.js";
import { brief, type MigrationIo, type StepDone, type WaitOptions, WriteFailed } from "./types.js";
import { patiently } from "./waits.js";

/** The Lease renewed on its own (one round trip), right before a write; its time logged at -vvv. */
async function renewBeforeWrite(io: MigrationIo, o: WaitOptions): Promise<void> {
  const t = io.clock.now();
  await patiently(io, o, "renewing the Lease", () => io.lock.renew());
  io.log(3, `renewed the Lease before the write in ${io.clock.now() - t} ms`);
}

/**
 * Renews the Lease right before the write (a run that lost it never writes), then writes, with its step in `done`
 * from the moment it is sent: settled or not, failed or not, it is reported. A write that fails keeps in its step
 * what it sent and what came back, and that error is returned (null when it succeeded); LockLost is thrown.
 */
export async function writeStep(
  io: MigrationIo,
  o: WaitOptions,
  title: string,
  write: Write,
  done: StepDone[],
  t0: number,
): Promise<{ entry: StepDone; error: string | null }> {
  await renewBeforeWrite(io, o);
  const entry: StepDone = {
    title,
    write,
    seconds: 0,
    settled: false,
    written_at: new Date(t0).toISOString(),
  };
  done.push(entry);
  try {
    await io.write(write);
    return { entry, error: null };
  } catch (e) {
    if (e instanceof LockLost) throw e;
    entry.seconds = (io.clock.now() - t0) / 1000;
    entry.sent = e instanceof WriteFailed ? e.sent : [];
    entry.error = e instanceof WriteFailed ? e.error : brief(e);
    return { entry, error: entry.error };
  }
}
