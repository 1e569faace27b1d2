// Every CIDR option is checked with the options, before the first read of the cluster (issue 37 item 4): a value
// that is no network of its IP version is refused in Ansible's wording, under Ansible (the module) and on the
// command line (naming the flag), with no command run; the same network spelled another way is accepted.

import { expect } from "chai";
import type { CommandResult, CommandRunner } from "../../../src/cluster/runner.js";
import type { HumanIo } from "../../../src/human/main.js";
import { runHuman } from "../../../src/human/main.js";
import { loadModule } from "../../../src/modules/index.js";
import { executeModule } from "../../../src/protocol/module.js";
import { validateOptions } from "../../../src/protocol/validate.js";

/** A runner that records what it was asked to run and answers as if nothing were installed. */
class Recorder implements CommandRunner {
  readonly ran: string[] = [];
  run(argv: readonly string[]): Promise<CommandResult> {
    this.ran.push(argv.join(" "));
    return Promise.resolve({
      rc: 127,
      stdout: "",
      stderr: `${argv[0]}: not found`,
      timedOut: false,
    });
  }
}

interface CidrOption {
  module: "calico_pool_check" | "calico_encap_migrate";
  mode: "check" | "migrate";
  option: string;
  /** What the refusal says it must be. */
  must: string;
  bad: string[];
  /** The same network, spelled as Go's net.ParseCIDR reads it. */
  good: string[];
}

const IPV4 = "an IPv4 network in CIDR notation, such as 10.233.64.0/18";
const IPV4_BAD = [
  "banana",
  "10.233.64.0/33",
  "10.233.064.0/18",
  "10.233.64.0",
  " 10.233.64.0/18",
  "10.233.64.0/18 ",
  "10.233.64/18",
  "fd85::/112",
  "",
];
const IPV4_GOOD = ["10.233.64.0/18", "10.233.64.7/18"];
const TUNNEL = "empty or an IPv4 network in CIDR notation, such as 172.30.0.0/24";
const TUNNEL_BAD = ["banana", "10.0.0.0/33", "172.030.0.0/24", " 172.30.0.0/24", "fd00::/120"];
const TUNNEL_GOOD = ["", "172.30.0.0/24", "172.30.0.7/24"];

const OPTIONS: CidrOption[] = [
  {
    module: "calico_pool_check",
    mode: "check",
    option: "pool_cidr",
    must: IPV4,
    bad: IPV4_BAD,
    good: IPV4_GOOD,
  },
  {
    module: "calico_pool_check",
    mode: "check",
    option: "pool_cidr_ipv6",
    must: "an IPv6 network in CIDR notation, such as fd85:ee78:d8a6:8607::1:0/112",
    bad: [
      "banana",
      "fd85:ee78:d8a6:8607::1:0/129",
      "fd85::1::/112",
      "fd85:ee78:d8a6:8607::1:00000/112",
      "::ffff:10.0.0.256/104",
      "10.233.64.0/18",
      "",
    ],
    good: [
      "fd85:ee78:d8a6:8607::1:0000/112",
      "fd85:ee78:d8a6:8607:0:0:1:0/112",
      "FD85:EE78:D8A6:8607::1:0/112",
      "2001:0db8:0:0::/64",
      "::ffff:10.0.0.0/104",
    ],
  },
  {
    module: "calico_encap_migrate",
    mode: "migrate",
    option: "pods_subnet",
    must: IPV4,
    bad: IPV4_BAD,
    good: IPV4_GOOD,
  },
  {
    module: "calico_encap_migrate",
    mode: "migrate",
    option: "service_addresses",
    must: IPV4,
    bad: IPV4_BAD,
    good: ["10.233.0.0/18", "10.233.0.1/18"],
  },
  {
    module: "calico_encap_migrate",
    mode: "migrate",
    option: "tunnel_pool_cidr",
    must: TUNNEL,
    bad: TUNNEL_BAD,
    good: TUNNEL_GOOD,
  },
  {
    module: "calico_encap_migrate",
    mode: "migrate",
    option: "ipip_tunnel_pool_cidr",
    must: TUNNEL,
    bad: TUNNEL_BAD,
    good: TUNNEL_GOOD,
  },
];

function humanIo(): HumanIo & { out: string; err: string; runner: Recorder } {
  const c = {
    out: "",
    err: "",
    stdout: { write: (s: string) => (c.out += s), isTTY: false },
    stderr: { write: (s: string) => (c.err += s), isTTY: false },
    env: {},
    runner: new Recorder(),
    onInterrupt: () => () => undefined,
  };
  return c;
}

const flag = (option: string): string => `--${option.replace(/_/g, "-")}`;

describe("CIDR options", () => {
  for (const o of OPTIONS) {
    describe(`${o.module} ${o.option}`, () => {
      for (const bad of o.bad) {
        const refusal = `value of ${o.option} must be ${o.must}, got: ${bad}`;

        it(`refuses '${bad}' before the first read, in Ansible's wording`, async () => {
          const factory = await loadModule(o.module);
          const runner = new Recorder();
          const result = await executeModule(factory!(runner), {
            [o.option]: bad,
            _ansible_check_mode: true,
          });
          expect(result, JSON.stringify(result)).to.deep.include({ failed: true, msg: refusal });
          expect(runner.ran, "nothing run").to.deep.equal([]);
        });

        it(`refuses '${bad}' on the command line, naming ${flag(o.option)}`, async () => {
          const c = humanIo();
          const code = await runHuman(
            o.mode,
            [flag(o.option), bad, ...(o.mode === "migrate" ? ["--check"] : [])],
            c,
          );
          expect(code, c.out + c.err).to.equal(2);
          expect(c.err).to.include(`calico-encap ${o.mode}: ${flag(o.option)}: ${refusal}`);
          expect(c.runner.ran, "nothing run").to.deep.equal([]);
        });
      }

      it(`accepts the network however it is spelled: ${o.good.map((g) => `'${g}'`).join(", ")}`, async () => {
        const def = (await loadModule(o.module))!(new Recorder());
        for (const good of o.good) {
          const v = validateOptions(
            def.optionsSchema,
            { [o.option]: good },
            { moduleName: o.module, ignoreUnknownOpts: false, stringConversionAction: "warn" },
            def.validate,
          );
          expect(v.error, good).to.equal(null);
        }
      });
    });
  }
});
