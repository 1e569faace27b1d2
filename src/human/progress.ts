// The progress display during a migration's waits, fed by the module's log lines (ctx.log) whatever
// they say. On a TTY, one line rewritten in place with the seconds elapsed (ticking while a wait
// lasts); otherwise one line per update, so a log file or CI output keeps each one.

export interface ProgressOut {
  write(text: string): unknown;
  columns?: number;
}

/**
 * "  12 s  <message>", fitted to the terminal's width when `columns` is known: a quoted part
 * (a step's title) is shortened first, so the counts after it stay visible, then the end is cut. Pure.
 */
export function progressLine(msg: string, elapsedMs: number, columns?: number): string {
  const prefix = `${String(Math.floor(elapsedMs / 1000)).padStart(4)} s  `;
  const room = columns === undefined || columns < 20 ? Infinity : columns - 1 - prefix.length;
  let body = msg;
  const quoted = /'(.+)'(?=:)/.exec(body);
  if (body.length > room && quoted?.[1] !== undefined) {
    const keep = Math.max(8, quoted[1].length - (body.length - room) - 1);
    if (keep < quoted[1].length)
      body = body.replace(quoted[1], () => `${quoted[1]?.slice(0, keep) ?? ""}…`);
  }
  if (body.length > room) body = `${body.slice(0, room - 1)}…`;
  return prefix + body;
}

export interface Ticker {
  /** Call fn every ms until the returned function is called. */
  every(ms: number, fn: () => void): () => void;
}

const realTicker: Ticker = {
  every(ms, fn) {
    const t = setInterval(fn, ms);
    t.unref();
    return () => clearInterval(t);
  },
};

export class Progress {
  private readonly start: number;
  private last: string | null = null;
  private stop: (() => void) | null = null;

  constructor(
    private readonly out: ProgressOut,
    private readonly inPlace: boolean,
    private readonly now: () => number = Date.now,
    private readonly ticker: Ticker = realTicker,
  ) {
    this.start = now();
  }

  /** One log line of the module. */
  update(msg: string): void {
    const elapsed = this.now() - this.start;
    if (!this.inPlace) {
      for (const line of msg.split(/\r?\n/)) this.out.write(progressLine(line, elapsed) + "\n");
      return;
    }
    this.last = msg.split(/\r?\n/)[0] ?? "";
    this.draw();
    this.stop ??= this.ticker.every(1000, () => this.draw());
  }

  private draw(): void {
    if (this.last === null) return;
    const line = progressLine(this.last, this.now() - this.start, this.out.columns);
    this.out.write(`\r\x1b[2K${line}`);
  }

  /** Ends the display: the in-place line is cleared, the ticker stopped. */
  done(): void {
    this.stop?.();
    this.stop = null;
    if (this.inPlace && this.last !== null) this.out.write("\r\x1b[2K");
    this.last = null;
  }
}
