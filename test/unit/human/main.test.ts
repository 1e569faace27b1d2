// runHuman end to end on calicoctl and kubectl stand-ins that replay the lab's recorded output.

import { expect } from "chai";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { LocalRunner } from "../../../src/cluster/runner.js";
import type { HumanIo } from "../../../src/human/main.js";
import { runHuman } from "../../../src/human/main.js";
import { calicoPoolCheck } from "../../../src/modules/calico_pool_check.js";
import { executeModule } from "../../../src/protocol/module.js";
import type { FakeTools } from "../../support/fake-commands.js";
import { recordedTools } from "../../support/recorded.js";

const KUBECONFIG = "/lab/admin.conf";

interface Captured extends HumanIo {
  out: string;
  err: string;
}

function io(env: Record<string, string> = {}): Captured {
  const c: Captured = {
    out: "",
    err: "",
    stdout: { write: (s: string) => (c.out += s), isTTY: false },
    stderr: { write: (s: string) => (c.err += s), isTTY: false },
    env,
    runner: new LocalRunner(),
    onInterrupt: () => () => undefined,
  };
  return c;
}

describe("human front: calico-encap check on a recorded Kubespray 2.18 cluster", () => {
  let tools: FakeTools;
  let lab: string[];
  before(() => {
    tools = recordedTools("kubespray-2.18", KUBECONFIG);
    lab = ["--calicoctl", tools.calicoctl, "--kubectl", tools.kubectl, "--kubeconfig", KUBECONFIG];
  });

  it("is blocked with Kubespray's defaults: exit 1, the findings shown", async () => {
    const c = io();
    expect(await runHuman("check", lab, c)).to.equal(1);
    expect(c.out).to.include("BLOCKED: 4 blocking findings");
    expect(c.out).to.include(
      "IPPool/default-pool spec.ipipMode: cluster has Always, inventory (calico_ipip_mode) says Never",
    );
    expect(c.out).to.include("calico-encap migrate --network-backend vxlan");
    expect(c.err).to.equal("");
  });

  it("passes with the 2.18 variables from a --vars file: exit 0", async () => {
    const vars = join(tools.dir, "k8s-net-calico.yml");
    writeFileSync(
      vars,
      "calico_ipip_mode: Always\ncalico_vxlan_mode: Never\ncalico_network_backend: bird\ncalico_pool_blocksize: 24\n",
    );
    const c = io();
    expect(await runHuman("check", [...lab, "--vars", vars], c)).to.equal(0);
    expect(c.out).to.include("PASSED\nThe inventory matches the live Calico configuration.\n");
  });

  it("--vars takes the paths from bin_dir and kube_config_dir, the pool's cidr from kube_pods_subnet", async () => {
    /** The 2.18 variables, no path flag: the paths only from Kubespray's bin_dir and kube_config_dir. */
    const check = async (kubePodsSubnet: string): Promise<[number, string]> => {
      const vars = join(tools.dir, "all.yml");
      writeFileSync(
        vars,
        `bin_dir: ${tools.dir}\nkube_config_dir: ${dirname(KUBECONFIG)}\nkube_pods_subnet: ${kubePodsSubnet}\n` +
          "calico_ipip_mode: Always\ncalico_vxlan_mode: Never\ncalico_network_backend: bird\ncalico_pool_blocksize: 24\n",
      );
      const c = io();
      return [await runHuman("check", ["--vars", vars], c), c.out];
    };
    const [passed, out] = await check("10.233.64.0/18");
    expect(passed, out).to.equal(0);
    expect(out).to.include("PASSED\nThe inventory matches the live Calico configuration.\n");
    const [blocked, findings] = await check("10.240.0.0/16");
    expect(blocked).to.equal(1);
    expect(findings).to.include(
      "IPPool/default-pool spec.cidr: cluster has 10.233.64.0/18, inventory (calico_pool_cidr) says 10.240.0.0/16",
    );
  });

  it("--json prints exactly the module's result", async () => {
    const c = io();
    expect(await runHuman("check", [...lab, "--json"], c)).to.equal(1);
    const module = await executeModule(calicoPoolCheck(new LocalRunner()), {
      calicoctl_path: tools.calicoctl,
      kubectl_path: tools.kubectl,
      kubeconfig: KUBECONFIG,
    });
    expect(c.out.endsWith("\n")).to.equal(true);
    expect(c.out.split("\n")).to.have.length(2);
    expect(JSON.parse(c.out)).to.deep.equal(module);
  });

  it("-vv shows the module's log lines on stderr", async () => {
    const c = io();
    await runHuman("check", [...lab, "-vv"], c);
    expect(c.err).to.match(/^ +\d+ s {2}observed the cluster: /m);
  });

  it("a usage error exits 2, says which flag and value, and points to --help", async () => {
    const c = io();
    expect(await runHuman("check", [...lab, "--network-backend", "BIRD"], c)).to.equal(2);
    expect(c.err).to.equal(
      "calico-encap check: --network-backend: value of network_backend must be one of: bird, vxlan, none, got: BIRD\nTry 'calico-encap check --help'.\n",
    );
    expect(c.out).to.equal("");
    const unknown = io();
    expect(await runHuman("migrate", ["--pool-blocksize", "24"], unknown)).to.equal(2);
    expect(unknown.err).to.equal(
      "calico-encap migrate: unknown flag --pool-blocksize\nTry 'calico-encap migrate --help'.\n",
    );
  });

  it("--help exits 0 and runs nothing", async () => {
    const c = io();
    expect(await runHuman("migrate", ["--help", "--calicoctl", "/nonexistent"], c)).to.equal(0);
    expect(c.out).to.match(/^usage: calico-encap migrate \[flags\]/);
  });
});
