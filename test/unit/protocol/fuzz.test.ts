// Fuzzed input (issue 39): both modules' arguments through Ansible's module protocol, and the CLI's flags, drawn
// by fast-check: wrong types, unknown keys, out-of-range numbers, unicode and control characters, very long strings,
// malformed CIDRs and names. Each run ends in one result with a clear message (or the CLI's usage error), never a
// stack trace, a throw or a hang, and the cluster (a stand-in that answers the reads as the lab's Kubespray 2.18
// cluster did, test/fixtures/lab) records no write.

import { expect } from "chai";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { CommandResult, CommandRunner } from "../../../src/cluster/runner.js";
import { runHuman, type HumanIo } from "../../../src/human/main.js";
import { loadModule } from "../../../src/modules/index.js";
import { serializeResult } from "../../../src/protocol/emit.js";
import { splitInternalKeys, wantsTraceback } from "../../../src/protocol/internal-keys.js";
import { executeModule } from "../../../src/protocol/module.js";
import { FIXTURES } from "../../support/recorded.js";

const fixture = (name: string): string =>
  readFileSync(join(FIXTURES, "kubespray-2.18", `${name}.json`), "utf8");

/** The reads of the lab's Kubespray 2.18 cluster; every other command fails; every command is recorded. */
function standInCluster(): { runner: CommandRunner; commands: string[] } {
  const commands: string[] = [];
  const kinds = fixture("calicoctl-get-kinds");
  const objects = JSON.stringify({
    apiVersion: "v1",
    kind: "List",
    items: [
      JSON.parse(fixture("kubectl-get-configmap-calico-config")) as unknown,
      JSON.parse(fixture("kubectl-get-daemonset-calico-node")) as unknown,
    ],
  });
  const answer = (argv: readonly string[]): CommandResult => {
    const line = argv.join(" ");
    commands.push(line);
    const ok = (stdout: string): CommandResult => ({ rc: 0, stdout, stderr: "", timedOut: false });
    if (/ get -f - -o json$/.test(line)) return ok(kinds);
    if (line.includes(" get configmap/calico-config daemonset/calico-node ")) return ok(objects);
    return { rc: 1, stdout: "", stderr: "stand-in: no answer", timedOut: false };
  };
  return {
    commands,
    runner: {
      run: (argv) => Promise.resolve(answer(argv)),
      runAll: (cmds) => Promise.resolve(cmds.map((c) => answer(c.argv))),
    },
  };
}

/** A command that would change the cluster (a can-i review stores nothing). */
const isWrite = (line: string): boolean =>
  !line.includes(" auth can-i ") &&
  /\s(patch|create|replace|apply|delete|label|annotate|edit)\s/.test(line);

const BASE = {
  calicoctl_path: "/usr/local/bin/calicoctl.sh",
  kubectl_path: "/usr/local/bin/kubectl",
  kubeconfig: "/etc/kubernetes/admin.conf",
};

const MALFORMED_CIDRS = [
  "banana",
  "10.233.64.0/33",
  "10.233.64.0/",
  "/18",
  "10.233.64/18",
  "300.1.1.1/24",
  "fd00::/129",
  "fd00:::1/64",
  "::ffff:10.0.0.1/200",
  " 10.0.0.0/8",
  "10.0.0.0/8\n",
  "10.0.0.0/8;rm -rf /",
];

/** Values no option should take as they are: every JSON type, control characters, huge and long. */
const weird = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.string({ unit: "binary", maxLength: 40 }),
    fc.string({ unit: "grapheme", maxLength: 40 }),
    fc.string({ minLength: 10000, maxLength: 20000 }),
    fc.constantFrom(...MALFORMED_CIDRS),
    fc.integer({ min: -(2 ** 53), max: 2 ** 53 }),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.jsonValue(), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue(), { maxKeys: 3 }),
  );

function expectClear(result: Record<string, unknown>, args: unknown): void {
  const where = JSON.stringify(args).slice(0, 400);
  expect(serializeResult(result).line, where).to.be.a("string");
  if (result.failed === true) {
    expect(result.msg, where).to.be.a("string").and.not.equal("");
    expect(result.msg, where).to.not.match(/\n\s+at \S+ \(|internal error in module/);
  }
  // AnsibleModule's rule: the traceback goes in `exception` at -vvv, with _ansible_debug, or when asked for.
  const internals =
    typeof args === "object" && args !== null && !Array.isArray(args)
      ? splitInternalKeys(args as Record<string, unknown>).internals
      : null;
  if (!internals || !wantsTraceback(internals))
    expect(result, where).to.not.have.property("exception");
}

for (const name of ["calico_pool_check", "calico_encap_migrate"] as const) {
  describe(`${name}'s arguments, fuzzed through the module protocol`, function () {
    this.timeout(120000);

    it("any value of any option, known or not: one clear result, no write", async () => {
      const factory = await loadModule(name);
      const def = factory!(standInCluster().runner);
      const options = Object.keys(def.optionsSchema.properties ?? {});
      await fc.assert(
        fc.asyncProperty(
          fc.dictionary(
            fc.oneof(fc.constantFrom(...options), fc.string({ maxLength: 12 })),
            weird(),
            { minKeys: 1, maxKeys: 3 },
          ),
          fc.boolean(),
          async (extra, checkMode) => {
            const cluster = standInCluster();
            const d = factory!(cluster.runner);
            const args = { ...BASE, ...extra, _ansible_check_mode: checkMode };
            expectClear(await executeModule(d, args), args);
            expect(
              cluster.commands.filter(isWrite),
              JSON.stringify(args).slice(0, 400),
            ).to.deep.equal([]);
          },
        ),
        { numRuns: 150 },
      );
    });

    it("a whole argument that is not an object, or Ansible's own keys with wrong values", async () => {
      const factory = await loadModule(name);
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.jsonValue(),
            fc.record({
              _ansible_check_mode: weird(),
              _ansible_diff: weird(),
              _ansible_verbosity: weird(),
              _ansible_no_log: weird(),
            }),
          ),
          async (args) => {
            const cluster = standInCluster();
            const merged =
              typeof args === "object" && args !== null && !Array.isArray(args)
                ? { ...BASE, ...args }
                : args;
            expectClear(await executeModule(factory!(cluster.runner), merged), merged);
            expect(cluster.commands.filter(isWrite)).to.deep.equal([]);
          },
        ),
        { numRuns: 100 },
      );
    });
  });
}

describe("calico-encap check|migrate's flags, fuzzed", function () {
  this.timeout(120000);
  const FLAGS = [
    "--ipip-mode",
    "--vxlan-mode",
    "--network-backend",
    "--pool-cidr",
    "--pool-blocksize",
    "--tunnel-pool-cidr",
    "--pods-subnet",
    "--service-addresses",
    "--wait-timeout",
    "--command-timeout",
    "--vars",
    "--check",
    "--diff",
    "--json",
    "-v",
    "--no-nat-outgoing",
    "--",
  ];

  it("any words: exit 0, 1 or 2 with a message, no stack trace, no write", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("check" as const, "migrate" as const),
        fc.array(
          fc.oneof(
            fc.constantFrom(...FLAGS),
            fc.constantFrom(...MALFORMED_CIDRS),
            fc.string({ unit: "binary", maxLength: 30 }),
            fc.integer().map(String),
          ),
          { maxLength: 6 },
        ),
        async (mode, words) => {
          const cluster = standInCluster();
          let out = "";
          let err = "";
          const io: HumanIo = {
            stdout: { write: (t: string) => (out += t) },
            stderr: { write: (t: string) => (err += t) },
            env: { NO_COLOR: "1" },
            runner: cluster.runner,
            onInterrupt: () => () => undefined,
          };
          const argv = [
            ...words,
            "--calicoctl",
            BASE.calicoctl_path,
            "--kubectl",
            BASE.kubectl_path,
          ];
          const code = await runHuman(mode, argv, io);
          const where = JSON.stringify([mode, ...words]);
          expect([0, 1, 2], where).to.include(code);
          expect(out + err, where).to.not.match(/\n\s+at \S+ \(/);
          if (code === 2) expect(err, where).to.match(new RegExp(`^calico-encap ${mode}: `));
          expect(cluster.commands.filter(isWrite), where).to.deep.equal([]);
        },
      ),
      { numRuns: 150 },
    );
  });
});
