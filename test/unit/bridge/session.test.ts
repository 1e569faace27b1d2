// calico-encap bridge over in-memory streams: the plugin's side answers exec ops from recorded output.

import { expect } from "chai";
import { live218 } from "../../support/builders.js";
import { calicoctlScript, kubectlScript } from "../../support/calico-json.js";
import { CALICOCTL_REQUEST } from "../../support/fake-commands.js";
import type { Answerer } from "./helpers/fake-plugin.js";
import { converse, runLine, scriptAnswerer } from "./helpers/fake-plugin.js";

const KUBECONFIG = "/etc/kubernetes/admin.conf";
const PINNED = {
  ipip_mode: "Always",
  vxlan_mode: "Never",
  network_backend: "bird",
  pool_blocksize: 24,
};

function cluster218(): Answerer {
  const live = live218();
  return scriptAnswerer({
    "calicoctl.sh": calicoctlScript(live),
    kubectl: kubectlScript(live, KUBECONFIG),
  });
}

function check(args: Record<string, unknown>): string {
  return runLine("calico_pool_check", { ...args, _ansible_module_name: "calico_pool_check" });
}

describe("calico-encap bridge", () => {
  it("runs calico_pool_check with its commands sent as exec ops, and ends with one result", async () => {
    const c = await converse([check({ ...PINNED, command_timeout: 17 })], { answer: cluster218() });
    expect(c.result?.failed, String(c.result?.msg)).to.not.equal(true);
    expect(c.result?.msg).to.equal("The inventory matches the live Calico configuration.");
    // calicoctl's read of the three kinds and kubectl's of calico-config and calico-node.
    expect(c.commands).to.have.length(2);
    expect(c.commands.map((e) => e.argv[0])).to.include("/usr/local/bin/calicoctl.sh");
    // Only calicoctl's read has stdin: its request (read-calicoctl.ts).
    for (const e of c.commands)
      expect(e).to.include({
        timeout: 17,
        stdin: e.argv.includes("-f") ? CALICOCTL_REQUEST : null,
      });
    expect(c.execs.map((e) => e.id)).to.deep.equal(c.execs.map((_, i) => i + 1));
    expect(c.messages.at(-1)?.op).to.equal("result");
    expect(c.messages.filter((m) => m.op === "result")).to.have.length(1);
  });

  it("sends the check's reads (calicoctl's one for three kinds and kubectl's) as one exec: one round trip", async () => {
    const c = await converse([check(PINNED)], { answer: cluster218() });
    expect(c.execs).to.have.length(1);
    expect(c.commands.map((e) => e.argv.slice(1, 3).join(" "))).to.deep.equal([
      "get -f",
      "--kubeconfig /etc/kubernetes/admin.conf",
    ]);
  });

  it("fails a 2.18 cluster checked with the 2.19 defaults, as module mode does", async () => {
    const c = await converse([check({ pool_blocksize: 24 })], { answer: cluster218() });
    expect(c.result?.failed).to.equal(true);
    expect(c.result?.msg).to.include(
      "spec.ipipMode: cluster has Always, inventory (calico_ipip_mode) says Never",
    );
  });

  it("sends log ops at the verbosity they ask for, only when Ansible runs that verbose", async () => {
    const quiet = await converse([check({ ...PINNED, _ansible_verbosity: 1 })], {
      answer: cluster218(),
    });
    expect(quiet.logs).to.deep.equal([]);
    const verbose = await converse([check({ ...PINNED, _ansible_verbosity: 2 })], {
      answer: cluster218(),
    });
    expect(verbose.logs.length).to.be.greaterThan(0);
    expect(verbose.logs[0]?.level).to.equal(2);
    expect(verbose.logs[0]?.msg).to.match(/^observed the cluster: /);
  });

  it("sends no log op under no_log, whatever the verbosity", async () => {
    const c = await converse([check({ ...PINNED, _ansible_verbosity: 4, _ansible_no_log: true })], {
      answer: cluster218(),
    });
    expect(c.result?.msg).to.equal("The inventory matches the live Calico configuration.");
    expect(c.logs).to.deep.equal([]);
  });

  it("rejects a bad option in AnsibleModule's words and sends no exec", async () => {
    const c = await converse([check({ bogus: 1 })], { answer: cluster218() });
    expect(c.result?.msg).to.match(
      /^Unsupported parameters for \(calico_pool_check\) module: bogus\. Supported parameters include: /,
    );
    expect(c.execs).to.deep.equal([]);
  });

  it("reports a command stopped by the plugin's timeout as timed out", async () => {
    const c = await converse([check(PINNED)], { answer: () => ({ rc: 124 }) });
    expect(c.result?.failed).to.equal(true);
    expect(c.result?.msg).to.include("timed out");
  });

  it("answers a line that is not JSON with a failed result", async () => {
    const c = await converse(["Traceback (most recent call last):"]);
    expect(c.result).to.include({ failed: true, changed: false });
    expect(c.result?.msg).to.include('the action plugin sent a line that is not JSON: "Traceback');
    expect(c.messages).to.have.length(1);
  });

  it("stops a running module with a failed result when a malformed line arrives", async () => {
    const c = await converse([check(PINNED)], {
      onExec: (exec, input) => {
        if (exec.id === 1)
          input.write('{"op":"exec_result","id":1,"rc":"zero","stdout":"","stderr":""}\n');
      },
    });
    expect(c.result?.failed).to.equal(true);
    expect(c.result?.msg).to.include('whose rc is "zero", not an integer');
    expect(c.messages.at(-1)?.op).to.equal("result");
  });

  it("refuses an exec_result for a command that is not pending, naming the pending ones", async () => {
    const c = await converse([check(PINNED)], {
      onExec: (exec, input) => {
        if (exec.id === 1)
          input.write('{"op":"exec_result","id":99,"rc":0,"stdout":"","stderr":""}\n');
      },
    });
    expect(c.result?.msg).to.match(/sent exec_result 99, but only [\d, ]+ (is|are) pending/);
  });

  it("refuses exec_result before run, and a second run", async () => {
    const early = await converse(['{"op":"exec_result","id":1,"rc":0,"stdout":"","stderr":""}']);
    expect(early.result?.msg).to.include("sent exec_result 1 before the run op");
    const twice = await converse([check(PINNED), check(PINNED)]);
    expect(twice.result?.msg).to.include("sent a second run op");
  });

  it("names the modules it runs when asked for another", async () => {
    const c = await converse([runLine("command", {})]);
    expect(c.result?.msg).to.include(
      'asked for module "command"; the bridge runs calico_pool_check and calico_encap_migrate',
    );
  });

  it("fails clearly when the plugin closes the bridge before the run op or during the run", async () => {
    const before = await converse([], { endInput: true });
    expect(before.result?.msg).to.include("closed the bridge before sending the run op");
    const during = await converse([check(PINNED)], {
      onExec: (exec, input) => {
        if (exec.id === 1) input.end();
      },
    });
    expect(during.result?.failed).to.equal(true);
    expect(during.result?.msg).to.include("closed the bridge while the module was running");
  });
});
