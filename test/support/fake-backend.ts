// Stand-ins for the calico-encap backend, for the action plugins' tests (CALICO_ENCAP_BACKEND points at one):
// a protocol-speaking echo backend, and backends that crash, exit without a result, hang or print garbage.

import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A backend (a .js file, which the plugin runs with node) that speaks the bridge protocol. From the run op's
 * args it sends `logs` ({level, msg}) as log ops and `execs` ({argv, stdin?, timeout?}) one at a time as exec
 * ops, then returns {changed: false, msg: "echo backend", module, args_json, results: [exec_result...]} with the
 * args' changed, warnings, deprecations and diff, if given.
 */
const ECHO_BACKEND = `// Test stand-in for calico-encap bridge: echoes the run op and runs what its args ask for.
const { createInterface } = require("node:readline");

const lines = createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
let run = null;
let waiting = null;
const results = [];
let next = 0;

function step() {
  const execs = run.args.execs ?? [];
  if (next < execs.length) {
    const e = execs[next++];
    waiting = next;
    send({ op: "exec", id: next, argv: e.argv, stdin: e.stdin ?? null, timeout: e.timeout ?? 10 });
    return;
  }
  // args as a JSON string: Ansible strips _ansible_* keys from results, however deep.
  const extra = {};
  for (const k of ["changed", "warnings", "deprecations", "diff"]) if (k in run.args) extra[k] = run.args[k];
  send({ op: "result", result: { changed: false, msg: "echo backend", module: run.module, args_json: JSON.stringify(run.args), results, ...extra } });
  lines.close();
}

lines.on("line", (line) => {
  const m = JSON.parse(line);
  if (m.op === "run") {
    run = m;
    for (const l of m.args.logs ?? []) send({ op: "log", level: l.level, msg: l.msg });
    step();
  } else if (m.op === "exec_result" && m.id === waiting) {
    results.push(m);
    step();
  }
});
`;

export interface FakeBackends {
  dir: string;
  echo: string;
  /** Writes "boom" to stderr and exits 3 without a word on stdout. */
  crash: string;
  /** Exits 0 at once, without a result. */
  silentExit: string;
  /** Reads nothing, says nothing, never exits. */
  hang: string;
  /** Prints what a broken install might (not JSON), then waits. */
  garbage: string;
  /** Crashes like crash, with a Jinja2 expression in its stderr. */
  crashTemplate: string;
}

function script(dir: string, name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n# Test stand-in for a broken calico-encap backend.\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

export function fakeBackends(): FakeBackends {
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-backend-"));
  const echo = join(dir, "echo-backend.js");
  writeFileSync(echo, ECHO_BACKEND);
  // CommonJS, whatever package.json a parent of the OS tmpdir holds ("type": "module" there would make it ESM).
  writeFileSync(join(dir, "package.json"), '{"type": "commonjs"}\n');
  return {
    dir,
    echo,
    crash: script(dir, "crash", 'echo "TypeError: boom at bridge/session.js:12" >&2\nexit 3'),
    silentExit: script(dir, "silent-exit", "exit 0"),
    hang: script(dir, "hang", "exec sleep 120"),
    garbage: script(dir, "garbage", 'echo "Segmentation fault (core dumped)"\nexec sleep 120'),
    crashTemplate: script(dir, "crash-template", 'echo "boom {{ 7 * 6 }} at bridge" >&2\nexit 3'),
  };
}
