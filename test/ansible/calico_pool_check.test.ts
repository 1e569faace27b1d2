// calico_pool_check through the real ansible and ansible-playbook (.venv), with calicoctl.sh and kubectl
// replaced by stand-ins that print what the real ones print (the lab tests run the real ones).

import { expect } from "chai";
import { readFileSync } from "node:fs";
import { ansibleDoc, coreBefore, runAdhoc, runTask } from "../support/ansible.js";
import { live218 } from "../support/builders.js";
import { calicoctlScript, kubectlScript } from "../support/calico-json.js";
import type { FakeTools } from "../support/fake-commands.js";
import { calicoctlAnswer, fakeTools } from "../support/fake-commands.js";

const KUBECONFIG = "/etc/kubernetes/admin.conf";

function tools218(): FakeTools {
  const live = live218();
  return fakeTools(calicoctlScript(live), kubectlScript(live, KUBECONFIG));
}

function paths(t: FakeTools): Record<string, string> {
  return { calicoctl_path: t.calicoctl, kubectl_path: t.kubectl };
}

const PINNED = { ipip_mode: "Always", vxlan_mode: "Never", network_backend: "bird", pool_blocksize: 24 };

describe("calico_pool_check through ansible-playbook", function () {
  this.timeout(60000);

  it("fails a Kubespray 2.18 cluster checked with the 2.19 defaults, naming every field", async () => {
    const { result, exitCode } = await runTask({ calico_pool_check: { ...paths(tools218()), pool_blocksize: 24 } });
    expect(exitCode).to.equal(0);
    expect(result.failed).to.equal(true);
    expect(result.changed).to.equal(false);
    expect(result.msg).to.include("spec.ipipMode: cluster has Always, inventory (calico_ipip_mode) says Never");
    expect(result.msg).to.include("data.calico_backend: cluster has bird, inventory (calico_network_backend) says vxlan");
    expect(result.pin_vars).to.deep.include({ calico_ipip_mode: "Always", calico_network_backend: "bird" });
  });

  it("passes with the pinned variables and reports no change", async () => {
    const { result, exitCode } = await runTask({ calico_pool_check: { ...paths(tools218()), ...PINNED } });
    expect(exitCode).to.equal(0);
    expect(result.failed).to.not.equal(true);
    expect(result.changed).to.equal(false);
    expect(result.msg).to.equal("The inventory matches the live Calico configuration.");
  });

  it("runs the same read-only comparison in check mode", async () => {
    const t = tools218();
    const { result } = await runTask({ calico_pool_check: { ...paths(t), pool_blocksize: 24 } }, { args: ["--check"] });
    expect(result.failed).to.equal(true);
    expect(result.msg).to.include("spec.vxlanMode");
    const argv = readFileSync(t.log, "utf8");
    expect(argv).to.not.match(/ (apply|patch|create|replace|delete) /);
  });

  it("returns blocking findings as warnings when fail_on_mismatch is false", async () => {
    const { result, exitCode } = await runTask({
      calico_pool_check: { ...paths(tools218()), pool_blocksize: 24, fail_on_mismatch: false },
    });
    expect(exitCode).to.equal(0);
    expect(result.warnings?.join("\n")).to.include("spec.ipipMode");
  });

  it("hides the result under no_log", async () => {
    const { stdout, result } = await runTask(
      { calico_pool_check: { ...paths(tools218()), ...PINNED }, no_log: true },
      { args: ["-v"] },
    );
    expect(stdout).to.include("the output has been hidden");
    expect(stdout).to.not.include("default-pool");
    expect(result.msg, "the registered result stays usable").to.equal("The inventory matches the live Calico configuration.");
  });

  it("names the command and its error when the datastore command fails", async () => {
    const t = fakeTools(calicoctlAnswer({ rc: 1, stderr: "Failed to create Calico API client: connection refused" }), {});
    const { result } = await runTask({ calico_pool_check: paths(t) });
    expect(result.failed).to.equal(true);
    expect(result.msg).to.match(/calicoctl\.sh get -f - -o json '\(IPPool, FelixConfiguration, ClusterInformation on stdin\)': failed with exit code 1, stderr: Failed to create Calico API client: connection refused/);
  });

  it("says what it expected when the datastore command prints garbage", async () => {
    const t = fakeTools(calicoctlAnswer({ stdout: "Segmentation fault\n" }), {});
    const { result } = await runTask({ calico_pool_check: paths(t) });
    expect(result.msg).to.match(/printed Segmentation fault; expected a JSON array of IPPoolList, FelixConfigurationList, ClusterInformationList/);
  });

  it("says how to install the backend when it is missing", async () => {
    const { result } = await runTask(
      { calico_pool_check: { ...PINNED } },
      { env: { CALICO_ENCAP_BACKEND: "/nonexistent/calico-encap" } },
    );
    expect(result.failed).to.equal(true);
    expect(result.msg).to.include("needs the calico-encap backend");
  });
});

describe("calico_pool_check options through ad-hoc ansible", function () {
  this.timeout(60000);

  it("rejects an unknown option in AnsibleModule's words and runs nothing", async () => {
    const t = tools218();
    const { output, exitCode } = await runAdhoc("calico_pool_check", `bogus=1 calicoctl_path=${t.calicoctl}`);
    expect(exitCode).to.equal(2);
    expect(output).to.match(/Unsupported parameters for \(calico_pool_check\) module: bogus\. Supported parameters include: calicoctl_path, command_timeout, datastore, datastore_client, fail_on_mismatch, ipip_mode,/);
    expect(readFileSync(t.log, "utf8")).to.equal("");
  });

  it("rejects a mode Calico does not know", async () => {
    const { output } = await runAdhoc("calico_pool_check", "ipip_mode=always");
    expect(output).to.include("value of ipip_mode must be one of: Always, CrossSubnet, Never, got: always");
  });

  it("rejects a block size that is not a number", async () => {
    const { output, exitCode } = await runAdhoc("calico_pool_check", "pool_blocksize=big");
    expect(exitCode, output).to.not.equal(0);
    // The error itself, in Ansible's words: the echoed invocation also names pool_blocksize, so the option name
    // alone would pass on any failure.
    expect(output).to.include(
      `"msg": "argument 'pool_blocksize' is of type <class 'str'> and we were unable to convert to int: 'big' cannot be converted to an int"`,
    );
  });

  it("accepts Ansible's booleans and integers as strings", async () => {
    const t = tools218();
    const { output, exitCode } = await runAdhoc(
      "calico_pool_check",
      `ipip_mode=Always vxlan_mode=Never network_backend=bird pool_blocksize=24 nat_outgoing=yes fail_on_mismatch=yes calicoctl_path=${t.calicoctl} kubectl_path=${t.kubectl}`,
    );
    expect(exitCode, output).to.equal(0);
    expect(output).to.include("SUCCESS");
  });
});

describe("ansible-doc calico_pool_check", function () {
  this.timeout(60000);
  it("shows every option and return value from the sidecar", async function () {
    // The checkout's ansible/library documents its modules in sidecar YAML files, which ansible-doc reads from
    // ansible-core 2.15 on; the collection's documentation modules (collection.test.ts) are read by every core.
    if (await coreBefore("2.15")) this.skip();
    const doc = await ansibleDoc("calico_pool_check");
    for (const word of ["ipip_mode", "network_backend", "pool_blocksize_ipv6", "fail_on_mismatch", "pin_vars", "findings", "migration"])
      expect(doc, word).to.include(word);
  });
});
