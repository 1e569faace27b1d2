// The longest outage of one pair: the longest gap between the send times of two consecutive probes that came back
// with at least one lost probe sent inside it. The plain longest gap (PairSummary.longest_gap_ms) also grows when the
// agent itself is held off the CPU and sends nothing for a while (its catch-up rounds then share one stamp): on a
// loaded machine that stall is the prober's, not the network's, and a gap with nothing lost in it is no outage
// (issue 50: 0 of 87502 lost, longest gap 828.7 ms at load 14-20). Pure: the agent feeds it echoes and expiries.

/** A gap between two consecutive received probes' send times (ms, monotonic). */
interface Gap {
  from: number;
  to: number;
}

export class OutageGaps {
  /** The send time of the latest probe that came back; the pair's start until one does. */
  private lastOk: number;
  /** The send time of the latest probe counted lost, or -Infinity. */
  private lastLost = -Infinity;
  /** Closed gaps a probe still pending may lie in, oldest first. */
  private recent: Gap[] = [];
  private longest = 0;
  /** The plain longest gap, what a lost probe falls back to when no kept gap holds it (never under-reported). */
  private longestAny = 0;

  constructor(
    start: number,
    private readonly intervalMs: number,
  ) {
    this.lastOk = start;
  }

  /** A probe sent at `sentAt` came back. Only echoes newer than every earlier one close a gap. */
  received(sentAt: number): void {
    if (sentAt <= this.lastOk) return;
    const gap = { from: this.lastOk, to: sentAt };
    this.longestAny = Math.max(this.longestAny, gap.to - gap.from);
    // A probe of this gap already counted lost (the echo came after its timeout): an outage now closed.
    if (this.lastLost > gap.from) this.longest = Math.max(this.longest, gap.to - gap.from);
    else this.recent.push(gap);
    this.lastOk = sentAt;
  }

  /**
   * A probe sent at `sentAt` was counted lost; `oldestPending` is the send time of the oldest probe still waiting
   * for its echo (or now): no later loss can lie in a gap that closed before it, so those gaps are dropped.
   */
  lost(sentAt: number, oldestPending: number): void {
    this.lastLost = Math.max(this.lastLost, sentAt);
    if (sentAt > this.lastOk) return; // still open: received() or ongoing() measures it
    const gap = this.recent.find((g) => g.from <= sentAt && sentAt <= g.to);
    this.longest = Math.max(
      this.longest,
      gap ? gap.to - gap.from : Math.max(this.longestAny, this.intervalMs),
    );
    this.prune(oldestPending);
  }

  /** Drops the gaps closed before `t`. */
  prune(t: number): void {
    let i = 0;
    while (i < this.recent.length && this.recent[i]!.to < t) i++;
    if (i > 0) this.recent.splice(0, i);
  }

  /** The longest outage so far, an outage still going on counted up to its latest lost probe and one interval. */
  longestOutage(): number {
    const ongoing = this.lastLost > this.lastOk ? this.lastLost - this.lastOk + this.intervalMs : 0;
    return Math.max(this.longest, ongoing);
  }
}
