// The action plugins' bridge through the real ansible-playbook (connection local): the backend runs on the
// controller, its commands through the task's connection. The real backend against command stand-ins, and
// stand-in backends (test/support/fake-backend.ts) for what the plugin itself must do and for broken backends.

import { expect } from "chai";
import { execa } from "execa";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TaskResult } from "../support/ansible.js";
import { ansibleEnv, REPO, runTask, VENV_BIN } from "../support/ansible.js";
import { live218 } from "../support/builders.js";
import { calicoctlScript, kubectlScript } from "../support/calico-json.js";
import type { FakeBackends } from "../support/fake-backend.js";
import { fakeBackends } from "../support/fake-backend.js";
import type { FakeTools } from "../support/fake-commands.js";
import { calicoctlAnswer, fakeTools } from "../support/fake-commands.js";

const KUBECONFIG = "/etc/kubernetes/admin.conf";
const BRIDGE_PY = join(REPO, "ansible", "plugin_utils", "calico_encap_bridge.py");
const PINNED = { ipip_mode: "Always", vxlan_mode: "Never", network_backend: "bird", pool_blocksize: 24 };

function tools218(): FakeTools {
  const live = live218();
  return fakeTools(calicoctlScript(live), kubectlScript(live, KUBECONFIG));
}

function paths(t: FakeTools): Record<string, string> {
  return { calicoctl_path: t.calicoctl, kubectl_path: t.kubectl };
}

interface ExecResult {
  rc: number;
  stdout: string;
  stderr: string;
}

/** The echo backend's result: the run op's module and args, and the exec_result of each exec it asked for. */
function echoed(result: TaskResult): { module: string; args: Record<string, unknown>; results: ExecResult[] } {
  const r = result as unknown as { module: string; args_json: string; results: ExecResult[] };
  return { module: r.module, args: JSON.parse(r.args_json) as Record<string, unknown>, results: r.results };
}

describe("the action-plugin bridge with the real backend", function () {
  this.timeout(60000);

  for (const [name, args] of [
    ["a failing check", { pool_blocksize: 24 }],
    ["a passing check", PINNED],
  ] as const) {
    it(`returns what module mode returns for ${name}`, async () => {
      const t = tools218();
      const task = { calico_pool_check: { ...paths(t), ...args } };
      const bridge = await runTask(task);
      const module = await runTask({ ...task, vars: { calico_encap_mode: "module" } });
      expect(bridge.result.msg).to.be.a("string");
      for (const key of ["failed", "changed", "msg", "pin_vars", "findings", "invocation"])
        expect(bridge.result[key], key).to.deep.equal(module.result[key]);
    });
  }

  it("runs the check's reads on the target in one command through the connection, each under timeout, with LC_ALL=C", async () => {
    const t = tools218();
    const { result, stdout } = await runTask(
      { calico_pool_check: { ...paths(t), ...PINNED, command_timeout: 17 } },
      { args: ["-vvv"] },
    );
    expect(result.failed, result.msg).to.not.equal(true);
    const execs = stdout.split("\n").filter((l) => l.includes("EXEC /bin/sh -c") && l.includes(" get "));
    expect(execs, stdout).to.have.length(1);
    expect(execs[0]).to.include("EXEC /bin/sh -c 'LC_ALL=C timeout -k 5 27 sh -c ");
    expect(execs[0]).to.include(`| base64 -d | timeout -k 5 17 ${t.calicoctl} get -f - -o json >`);
    expect(execs[0]).to.include(`timeout -k 5 17 ${t.kubectl} --kubeconfig /etc/kubernetes/admin.conf --namespace`);
    const calls = readFileSync(t.log, "utf8");
    expect(calls).to.include("calicoctl.sh get -f - -o json");
  });

  it("module mode runs the module on the target instead (no exec of the commands by the plugin)", async () => {
    const t = tools218();
    const { result, stdout } = await runTask(
      { calico_pool_check: { ...paths(t), ...PINNED }, vars: { calico_encap_mode: "module" } },
      { args: ["-vvv"] },
    );
    expect(result.msg).to.equal("The inventory matches the live Calico configuration.");
    expect(stdout).to.not.include("timeout -k 5");
    expect(stdout).to.include("AnsiballZ_calico_pool_check");
  });

  it("shows the backend's log lines at their verbosity, and none under no_log", async () => {
    const t = tools218();
    const task = { calico_pool_check: { ...paths(t), ...PINNED } };
    expect((await runTask(task, { args: ["-v"] })).stdout).to.not.include("observed the cluster");
    expect((await runTask(task, { args: ["-vv"] })).stdout).to.match(/<localhost> observed the cluster: read with calicoctl, 1 pool\(s\), backend bird\n/);
    const hidden = await runTask({ ...task, no_log: true }, { args: ["-vvvv"] });
    expect(hidden.stdout).to.not.include("observed the cluster");
    expect(hidden.stdout).to.include("the output has been hidden");
    expect(hidden.result.msg).to.equal("The inventory matches the live Calico configuration.");
  });

  it("rejects a bad option in AnsibleModule's words and runs no command", async () => {
    const t = tools218();
    const { result } = await runTask({ calico_pool_check: { ...paths(t), bogus: 1 } });
    expect(result.failed).to.equal(true);
    expect(result.msg).to.match(/^Unsupported parameters for \(calico_pool_check\) module: bogus\. Supported parameters include: calicoctl_path, /);
    expect(readFileSync(t.log, "utf8")).to.equal("");
  });

  it("returns cluster text untrusted: a {{ }} in a command's stderr reaches the play unevaluated", async () => {
    const live = live218();
    const t = fakeTools(
      calicoctlAnswer({ stderr: "denied {{ 7 * 6 }} by policy\n", rc: 1 }),
      kubectlScript(live, KUBECONFIG),
    );
    // Each later task templates the registered msg again; a trusted string would come back as "denied 42".
    const templated = { task_result: { msg: "{{ task_result.msg }}", templated: "{{ task_result.msg }}" } };
    const { result } = await runTask(
      { calico_pool_check: { ...paths(t), ...PINNED } },
      { after: [{ name: "Template the result", "ansible.builtin.set_fact": templated }] },
    );
    expect(result.templated).to.include("denied {{ 7 * 6 }} by policy");
    expect(result.templated).to.not.include("42");
  });

  it("marks every string of the result untrusted as a template (AnsibleUnsafe before ansible-core 2.19)", async () => {
    const script = [
      "import importlib.util, json, sys",
      "spec = importlib.util.spec_from_file_location('b', sys.argv[1])",
      "m = importlib.util.module_from_spec(spec)",
      "spec.loader.exec_module(m)",
      "r = m.result_of(sys.argv[2])",
      "try:",
      "    from ansible.template import is_trusted_as_template as trusted",
      "except ImportError:",
      "    from ansible.utils.unsafe_proxy import AnsibleUnsafe",
      "    trusted = lambda v: not isinstance(v, AnsibleUnsafe)",
      "print(json.dumps([trusted(r['msg']), trusted(r['findings'][0]['detail'])]))",
    ].join("\n");
    const line = JSON.stringify({ op: "result", result: { msg: "{{ a }}", findings: [{ detail: "{{ b }}" }] } });
    const r = await execa(join(VENV_BIN, "python"), ["-c", script, BRIDGE_PY, line], { env: ansibleEnv() });
    expect(JSON.parse(r.stdout)).to.deep.equal([false, false]);
  });

  it("says which module runs where when calico_encap_mode is neither bridge nor module", async () => {
    const { result } = await runTask({ calico_pool_check: PINNED, vars: { calico_encap_mode: "remote" } });
    expect(result.failed).to.equal(true);
    expect(result.msg).to.include("calico_encap_mode must be bridge or module, got 'remote'");
  });
});

describe("the action-plugin bridge with a stand-in backend", function () {
  this.timeout(60000);
  let b: FakeBackends;
  before(() => {
    b = fakeBackends();
  });

  async function echo(args: Record<string, unknown>, options: { args?: string[]; task?: Record<string, unknown> } = {}) {
    const r = await runTask(
      { calico_pool_check: args, ...options.task },
      { env: { CALICO_ENCAP_BACKEND: b.echo }, ...(options.args ? { args: options.args } : {}) },
    );
    return { ...r, echo: echoed(r.result) };
  }

  it("sends the task's args and Ansible's settings (check mode, diff, verbosity, no_log, name, version)", async () => {
    const { echo: e } = await echo({ ipip_mode: "Always" }, { args: ["--check", "--diff", "-vv"] });
    expect(e.module).to.equal("calico_pool_check");
    expect(e.args).to.include({
      ipip_mode: "Always",
      _ansible_check_mode: true,
      _ansible_diff: true,
      _ansible_verbosity: 2,
      _ansible_no_log: false,
      _ansible_module_name: "calico_pool_check",
    });
    expect(e.args._ansible_version).to.match(/^2\.\d+\.\d+/);
    const migrate = await runTask(
      { calico_encap_migrate: { ipip_mode: "Never" } },
      { env: { CALICO_ENCAP_BACKEND: b.echo } },
    );
    expect(echoed(migrate.result).module).to.equal("calico_encap_migrate");
    expect(echoed(migrate.result).args).to.include({ _ansible_module_name: "calico_encap_migrate" });
    const plain = (await echo({ ipip_mode: "Always" }, { task: { no_log: true } })).echo;
    expect(plain.args).to.include({ _ansible_check_mode: false, _ansible_diff: false, _ansible_verbosity: 0, _ansible_no_log: true });
  });

  it("passes every word of argv intact, stdin, and the task's environment", async () => {
    const { echo: e } = await echo(
      {
        execs: [
          { argv: ["printf", "%s|", "a b", "$HOME", "it's", '"q"', "*"] },
          { argv: ["cat"], stdin: "line 1\nline 2\n" },
          { argv: ["sh", "-c", 'echo "$CALICO_TEST_VAR $LC_ALL"'] },
        ],
      },
      { task: { environment: { CALICO_TEST_VAR: "x y" } } },
    );
    expect(e.results.map((r) => r.stdout)).to.deep.equal([`a b|$HOME|it's|"q"|*|`, "line 1\nline 2\n", "x y C\n"]);
    expect(e.results.every((r) => r.rc === 0)).to.equal(true);
  });

  it("answers a command whose connection fails with rc 255 and ssh's error in stderr, not an unreachable host", async () => {
    const unreachable = { ansible_connection: "ssh", ansible_host: "127.0.0.1", ansible_port: 9, ansible_user: "root" };
    const { echo: e, result } = await echo({ execs: [{ argv: ["true"] }] }, { task: { vars: unreachable } });
    expect(result.unreachable, "unreachable").to.not.equal(true);
    expect(e.results[0]?.rc).to.equal(255);
    expect(e.results[0]?.stderr).to.match(/^the connection to the target failed: .*(refused|port 9)/is);
  });

  it("stops a command on the target at its timeout, with timeout's exit code 124", async () => {
    const started = Date.now();
    const { echo: e } = await echo({ execs: [{ argv: ["sleep", "30"], timeout: 1 }] });
    expect(e.results[0]?.rc).to.equal(124);
    expect(Date.now() - started).to.be.lessThan(25000);
  });

  it("honours become: the command runs as the become user, wrapped by the become method", async () => {
    const become = { become: true, become_method: "su", become_user: "nobody", become_flags: "-s /bin/sh" };
    const { echo: e, stdout } = await echo({ execs: [{ argv: ["id", "-un"] }] }, { task: become, args: ["-vvv"] });
    expect(e.results[0]?.stdout).to.equal("nobody\n");
    expect(stdout).to.match(/EXEC \/bin\/sh -c 'su -s \/bin\/sh nobody -c .*BECOME-SUCCESS-\w+.*timeout -k 5 10 id -un/);
    const plain = (await echo({ execs: [{ argv: ["id", "-un"] }] })).echo;
    expect(plain.results[0]?.stdout).to.equal("root\n");
  });

  it("shows log ops at their verbosity while the task runs", async () => {
    const logs = [
      { level: 1, msg: "step 1/2 'stand-in': 1 of 3 nodes converged (2 s)" },
      { level: 3, msg: "detail at -vvv" },
    ];
    const quiet = await echo({ logs });
    expect(quiet.stdout).to.not.include("nodes converged");
    const v = await echo({ logs }, { args: ["-v"] });
    expect(v.stdout).to.include("<localhost> step 1/2 'stand-in': 1 of 3 nodes converged (2 s)");
    expect(v.stdout).to.not.include("<localhost> detail at -vvv");
    expect((await echo({ logs }, { args: ["-vvv"] })).stdout).to.include("<localhost> detail at -vvv");
  });

  it("shows the result's warnings, deprecations and diff as Ansible shows a module's", async () => {
    const result = {
      changed: true,
      warnings: ["stand-in warning about the MTU"],
      deprecations: [{ msg: "stand-in option x is deprecated", version: "9.0.0" }],
      diff: { before: "ipipMode: Always\n", after: "ipipMode: Never\n", before_header: "IPPool default-pool" },
    };
    const { stdout } = await echo(result, { args: ["--diff"] });
    expect(stdout).to.match(/\[WARNING\]: stand-in warning about the MTU/);
    expect(stdout).to.match(/\[DEPRECATION WARNING\]: stand-in option x is deprecated/);
    expect(stdout).to.include("-ipipMode: Always");
    expect(stdout).to.include("+ipipMode: Never");
    expect((await echo(result)).stdout).to.not.include("+ipipMode: Never");
  });

  async function broken(backend: string, vars: Record<string, unknown> = {}): Promise<TaskResult> {
    const { result } = await runTask(
      { calico_pool_check: PINNED, vars },
      { env: { CALICO_ENCAP_BACKEND: backend } },
    );
    expect(result.failed).to.equal(true);
    expect(result.changed).to.equal(false);
    return result;
  }

  it("fails clearly when the backend crashes, with its exit code and stderr", async () => {
    const r = await broken(b.crash);
    expect(r.msg).to.include(`calico_pool_check: the calico-encap backend (${b.crash} bridge) exited with code 3 before sending a result`);
    expect(r.msg).to.include("its stderr: TypeError: boom at bridge/session.js:12");
    expect(r.msg).to.include("reinstall it");
  });

  it("marks its own failure message untrusted too: a {{ }} in the backend's stderr reaches the play unevaluated", async () => {
    const templated = { task_result: { msg: "{{ task_result.msg }}", templated: "{{ task_result.msg }}" } };
    const { result } = await runTask(
      { calico_pool_check: PINNED },
      {
        env: { CALICO_ENCAP_BACKEND: b.crashTemplate },
        after: [{ name: "Template the result", "ansible.builtin.set_fact": templated }],
      },
    );
    expect(result.templated).to.include("boom {{ 7 * 6 }} at bridge");
    expect(result.templated).to.not.include("boom 42");
  });

  it("fails clearly when the backend exits without a result", async () => {
    const r = await broken(b.silentExit);
    expect(r.msg).to.include("exited with code 0 before sending a result; its stderr: (empty)");
  });

  it("stops a backend that hangs and says what to do", async () => {
    const started = Date.now();
    const r = await broken(b.hang, { calico_encap_bridge_idle_timeout: 2 });
    expect(r.msg).to.include(`the calico-encap backend (${b.hang} bridge) sent nothing for 2 s while no command was running on the target, and was stopped`);
    expect(r.msg).to.include("raise calico_encap_bridge_idle_timeout");
    expect(Date.now() - started).to.be.lessThan(30000);
  });

  it("fails clearly when the backend prints something that is not the protocol", async () => {
    const r = await broken(b.garbage);
    expect(r.msg).to.include("printed a line that is not the bridge protocol: 'Segmentation fault (core dumped)'");
    expect(r.msg).to.include("expected one JSON object per line with op exec, log or result");
  });

  it("says how to install the backend when CALICO_ENCAP_BACKEND names nothing", async () => {
    const r = await broken("/nonexistent/cli.js");
    expect(r.msg).to.include("calico_pool_check: this task needs the calico-encap backend on the controller");
    expect(r.msg).to.include("CALICO_ENCAP_BACKEND=/nonexistent/cli.js does not exist");
    expect(r.msg).to.include("calico_encap_mode: module");
  });
});
