import { expect } from "chai";
import checkSchema from "../../../schemas/calico_pool_check.options.json" with { type: "json" };
import migrateSchema from "../../../schemas/calico_encap_migrate.options.json" with { type: "json" };
import { flagName, flagsFor, optionFlags, shellWord } from "../../../src/human/flags.js";
import type { HumanArgs } from "../../../src/human/parse.js";
import { parseHumanArgs } from "../../../src/human/parse.js";

const CHECK = optionFlags(checkSchema);
const MIGRATE = optionFlags(migrateSchema);

function parsed(mode: "check" | "migrate", ...argv: string[]): HumanArgs {
  const r = parseHumanArgs(mode, argv, mode === "check" ? CHECK : MIGRATE);
  if (!r.ok) throw new Error(r.error);
  return r.args;
}

function error(mode: "check" | "migrate", ...argv: string[]): string {
  const r = parseHumanArgs(mode, argv, mode === "check" ? CHECK : MIGRATE);
  if (r.ok) throw new Error(`parsed: ${JSON.stringify(r.args)}`);
  return r.error;
}

describe("human front: flags from the schemas", () => {
  it("has one flag per option of each schema, named after it", () => {
    expect(CHECK.map((f) => f.option)).to.deep.equal(Object.keys(checkSchema.properties));
    expect(MIGRATE.map((f) => f.option)).to.deep.equal(Object.keys(migrateSchema.properties));
    expect(flagName("pool_blocksize")).to.equal("--pool-blocksize");
  });

  it("takes choices, defaults, descriptions and Kubespray variables from the schema", () => {
    const ipip = CHECK.find((f) => f.option === "ipip_mode");
    expect(ipip).to.include({
      flag: "--ipip-mode",
      metavar: "{Always,CrossSubnet,Never}",
      default: "Never",
      kubesprayVariable: "calico_ipip_mode",
      description: checkSchema.properties.ipip_mode.description,
    });
    expect(CHECK.find((f) => f.option === "pool_blocksize")).to.include({ metavar: "N" });
    expect(CHECK.find((f) => f.option === "pool_cidr_ipv6")).to.include({ metavar: "CIDR" });
  });

  it("gives calicoctl_path and kubectl_path short aliases", () => {
    expect(CHECK.find((f) => f.option === "calicoctl_path")?.aliases).to.deep.equal([
      "--calicoctl",
    ]);
    expect(MIGRATE.find((f) => f.option === "kubectl_path")?.aliases).to.deep.equal(["--kubectl"]);
    expect(CHECK.find((f) => f.option === "kubeconfig")?.flag).to.equal("--kubeconfig");
  });

  it("writes option values back as flags for a suggested command, quoting for the shell", () => {
    expect(
      flagsFor(
        {
          ipip_mode: "Never",
          ipv6_stack: false,
          calicoctl_path: "/a b/c",
          extra_pools: ["x", "y"],
        },
        MIGRATE,
      ),
    ).to.deep.equal([
      "--ipip-mode",
      "Never",
      "--no-ipv6-stack",
      "--calicoctl",
      "'/a b/c'",
      "--extra-pools",
      "x,y",
    ]);
    expect(shellWord("it's")).to.equal(`'it'\\''s'`);
  });
});

describe("human front: parsing the command line", () => {
  it("reads option flags as typed, for the module's validator to convert", () => {
    const a = parsed("check", "--pool-blocksize", "24", "--ipip-mode=Always", "--calicoctl", "/x");
    expect(a.options).to.deep.equal({
      pool_blocksize: { value: "24", source: "--pool-blocksize" },
      ipip_mode: { value: "Always", source: "--ipip-mode" },
      calicoctl_path: { value: "/x", source: "--calicoctl" },
    });
  });

  it("reads booleans as --x / --no-x, and --x=VALUE", () => {
    expect(parsed("check", "--no-nat-outgoing").options.nat_outgoing?.value).to.equal(false);
    expect(parsed("check", "--nat-outgoing").options.nat_outgoing?.value).to.equal(true);
    expect(parsed("check", "--ipv6-stack=no").options.ipv6_stack?.value).to.equal("no");
  });

  it("lets a later flag win, and collects a list option given twice", () => {
    expect(parsed("check", "--ipip-mode", "Never", "--ipip-mode", "Always").options.ipip_mode)
      .to.have.property("value")
      .that.equals("Always");
    expect(
      parsed("migrate", "--extra-pools", "a,b", "--extra-pools", "c").options.extra_pools?.value,
    ).to.equal("a,b,c");
  });

  it("reads the front's own flags", () => {
    const a = parsed("migrate", "--check", "--diff", "-vv", "--json", "--vars", "f.yml");
    expect(a).to.include({ check: true, diff: true, verbosity: 2, json: true, help: false });
    expect(a.varsFiles).to.deep.equal(["f.yml"]);
    expect(parsed("check", "-v", "--verbose", "--vars=a", "--vars", "b")).to.deep.include({
      verbosity: 2,
      varsFiles: ["a", "b"],
    });
    expect(parsed("check", "-h").help).to.equal(true);
  });

  it("refuses an unknown flag, naming it", () => {
    expect(error("check", "--pool-size", "24")).to.equal("unknown flag --pool-size");
    expect(error("check", "--no-pool-name")).to.equal("unknown flag --no-pool-name");
  });

  it("says when a flag belongs to the other command", () => {
    expect(error("check", "--check")).to.equal(
      "unknown flag --check (--check is a flag of calico-encap migrate)",
    );
    expect(error("migrate", "--pool-blocksize", "24")).to.equal("unknown flag --pool-blocksize");
  });

  it("refuses a flag without its value, and a value without its flag", () => {
    expect(error("check", "--pool-blocksize")).to.equal("--pool-blocksize needs a value (N)");
    expect(error("check", "--kubeconfig", "--json")).to.equal(
      "--kubeconfig needs a value (KUBECONFIG)",
    );
    expect(error("check", "--vars")).to.equal("--vars needs a value (FILE)");
    expect(error("check", "Always")).to.equal(
      "unexpected argument 'Always' (every value follows its flag)",
    );
  });

  it("refuses a value on a flag that takes none", () => {
    expect(error("migrate", "--check=yes")).to.equal("--check takes no value, got: --check=yes");
    expect(error("check", "--no-nat-outgoing=1")).to.equal(
      "--no-nat-outgoing takes no value, got: --no-nat-outgoing=1",
    );
  });
});
