import { expect } from "chai";
import { prefetching } from "../../../src/cluster/prefetch.js";
import type { BatchCommand, CommandRunner } from "../../../src/cluster/runner.js";

function recording(): { runner: CommandRunner; batches: string[][]; singles: string[] } {
  const batches: string[][] = [];
  const singles: string[] = [];
  const answer = (argv: readonly string[]) => ({
    rc: 0,
    stdout: argv.join(" "),
    stderr: "",
    timedOut: false,
  });
  return {
    batches,
    singles,
    runner: {
      run: (argv) => (singles.push(argv.join(" ")), Promise.resolve(answer(argv))),
      runAll: (commands: readonly BatchCommand[]) => (
        batches.push(commands.map((c) => c.argv.join(" "))),
        Promise.resolve(commands.map((c) => answer(c.argv)))
      ),
    },
  };
}

describe("prefetching", () => {
  it("sends the known reads as one batch at the first of them and answers each from it", async () => {
    const r = recording();
    const p = prefetching(r.runner, [
      { argv: ["a"], timeoutSeconds: 1 },
      { argv: ["b"], timeoutSeconds: 1 },
      { argv: ["c"], timeoutSeconds: 1 },
    ]);
    expect(r.batches).to.deep.equal([]);
    const [b, a] = await Promise.all([
      p.run(["b"], { timeoutSeconds: 1 }),
      p.run(["a"], { timeoutSeconds: 1 }),
    ]);
    expect([a.stdout, b.stdout]).to.deep.equal(["a", "b"]);
    expect(r.batches).to.deep.equal([["a", "b", "c"]]);
    expect(r.singles).to.deep.equal([]);
  });

  it("runs anything else, a second ask for the same argv, and a command with stdin through the runner", async () => {
    const r = recording();
    const p = prefetching(r.runner, [{ argv: ["a"], timeoutSeconds: 1 }]);
    await p.run(["a"], { timeoutSeconds: 1 });
    await p.run(["a"], { timeoutSeconds: 1 });
    await p.run(["z"], { timeoutSeconds: 1 });
    expect(r.singles).to.deep.equal(["a", "z"]);
    const q = prefetching(r.runner, [{ argv: ["apply"], timeoutSeconds: 1 }]);
    await q.run(["apply"], { timeoutSeconds: 1, stdin: "{}" });
    expect(r.singles).to.deep.equal(["a", "z", "apply"]);
  });
});
