// Phase marks for `npm run bench`: when CALICO_ENCAP_TIMINGS is set, the process prints its marks
// (milliseconds since the process started) as one stderr line at exit. Costs nothing otherwise.

import { performance } from "node:perf_hooks";

const marks: Record<string, number> = {};
const enabled = process.env.CALICO_ENCAP_TIMINGS !== undefined;

export function mark(name: string): void {
  if (enabled) marks[name] = Math.round(performance.now() * 100) / 100;
}

if (enabled)
  process.on("exit", () => {
    mark("exit");
    process.stderr.write(`calico-encap timings: ${JSON.stringify(marks)}\n`);
  });
