// The action-plugin bridge over real SSH to the lab's node-1: the backend runs on the controller and each of
// its commands goes to node-1 through Ansible's ssh connection (seen at -vvv as the exact command line only
// the bridge produces: LC_ALL=C timeout -k 5 <timeout> <argv>). calico_encap_migrate's progress lines
// arrive at -v while the task waits, not with its result.

import { expect } from "chai";
import { execa } from "execa";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { ansibleEnv, VENV_BIN } from "../support/ansible.js";
import type { Lab } from "../support/lab.js";
import { labDown, labUp, nodesStatus, waitUntil } from "../support/lab.js";

interface PlayRun {
  result: Record<string, unknown>;
  output: string;
  exitCode: number;
  /** Each output line with the milliseconds from the start of ansible-playbook until it arrived. */
  lines: { ms: number; text: string }[];
  totalMs: number;
}

const DATASTORE = {
  calicoctl_path: "{{ bin_dir }}/calicoctl.sh",
  kubectl_path: "{{ bin_dir }}/kubectl",
  kubeconfig: "{{ kube_config_dir }}/admin.conf",
};

/** One task on kube_control_plane (node-1 over SSH) with the lab's inventory; its result saved on the controller. */
async function play(
  lab: Lab,
  task: Record<string, unknown>,
  args: string[] = [],
): Promise<PlayRun> {
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-bridge-ssh-"));
  const out = join(dir, "result.json");
  const playbook = join(dir, "play.yml");
  writeFileSync(
    playbook,
    stringify([
      {
        hosts: "kube_control_plane",
        gather_facts: false,
        tasks: [
          { ...task, run_once: true, register: "r", ignore_errors: true },
          {
            name: "Save the result on the controller",
            "ansible.builtin.copy": { content: "{{ r | to_json }}", dest: out, mode: "0600" },
            delegate_to: "localhost",
            run_once: true,
            check_mode: false,
          },
        ],
      },
    ]),
  );
  const started = Date.now();
  const lines: PlayRun["lines"] = [];
  let pending = "";
  const child = execa(
    join(VENV_BIN, "ansible-playbook"),
    ["-i", join(lab.state, "inventory.ini"), playbook, ...args],
    { env: ansibleEnv(), reject: false, all: true, buffer: true },
  );
  child.all?.on("data", (chunk: Buffer) => {
    const parts = (pending + chunk.toString()).split("\n");
    pending = parts.pop() ?? "";
    for (const text of parts) lines.push({ ms: Date.now() - started, text });
  });
  const r = await child;
  const totalMs = Date.now() - started;
  const output = r.all ?? "";
  let result: Record<string, unknown>;
  try {
    result = JSON.parse(readFileSync(out, "utf8")) as Record<string, unknown>;
  } catch {
    throw new Error(`no result from ansible-playbook (exit ${r.exitCode}): ${output}`);
  }
  return { result, output, exitCode: r.exitCode ?? -1, lines, totalMs };
}

describe("the action-plugin bridge over SSH to the lab's node-1", function () {
  this.timeout(600000);
  let lab: Lab;
  let binDir: string;
  before(async () => {
    lab = await labUp("kubespray-2.18");
    const inventory = readFileSync(join(lab.state, "inventory.ini"), "utf8");
    binDir = /^bin_dir=(.*)$/m.exec(inventory)?.[1] ?? "";
    expect(binDir, "the inventory's bin_dir").to.not.equal("");
    await waitUntil("calico-node ready with BIRD", () => {
      const s = nodesStatus(lab).summary;
      return s.podsReady === 3 && s.birdRunning === 3;
    });
  });
  after(labDown);

  it("runs calico_pool_check on the controller, each command on node-1 through ssh", async () => {
    const task = {
      calico_pool_check: {
        ...DATASTORE,
        ipip_mode: "Always",
        vxlan_mode: "Never",
        network_backend: "bird",
        pool_blocksize: 24,
      },
    };
    const r = await play(lab, task, ["-vvv"]);
    expect(r.exitCode, r.output).to.equal(0);
    expect(r.result.msg, r.output).to.equal("The inventory matches the live Calico configuration.");
    // What only the bridge sends: the readers' argv, each under timeout, in one batch program (one round trip),
    // as the ssh connection executes it.
    const sshExec = r.output
      .split("\n")
      .filter((l) => l.includes("SSH: EXEC ssh") && l.includes(" get "));
    expect(sshExec.length, r.output).to.equal(1);
    expect(sshExec[0]).to.include("LC_ALL=C timeout -k 5 70 sh -c");
    expect(sshExec[0]).to.include(
      `| base64 -d | timeout -k 5 60 ${binDir}/calicoctl.sh get -f - -o json`,
    );
    expect(sshExec[0]).to.include("get configmap/calico-config daemonset/calico-node");
    // No module travelled to node-1, and nothing told a backend on node-1 where it is.
    expect(r.output).to.not.include("AnsiballZ_calico_pool_check");
    expect(r.output).to.not.include("CALICO_ENCAP_BACKEND");
  });

  it("keeps a command's stderr apart from its stdout over ssh (no terminal), so warnings cannot corrupt the JSON", async () => {
    // calicoctl.sh and kubectl that warn on stderr first, as a login shell's rc file or a deprecation may.
    const dir = mkdtempSync(join(tmpdir(), "calico-encap-noisy-"));
    for (const tool of ["calicoctl.sh", "kubectl"]) {
      const path = join(dir, tool);
      writeFileSync(
        path,
        `#!/bin/sh\necho "warning: ${tool} is noisy" >&2\nexec ${binDir}/${tool} "$@"\n`,
      );
      chmodSync(path, 0o755);
    }
    const r = await play(lab, {
      calico_pool_check: {
        ...DATASTORE,
        calicoctl_path: join(dir, "calicoctl.sh"),
        kubectl_path: join(dir, "kubectl"),
        ipip_mode: "Always",
        vxlan_mode: "Never",
        network_backend: "bird",
        pool_blocksize: 24,
      },
    });
    expect(r.exitCode, r.output).to.equal(0);
    expect(r.result.msg, r.output).to.equal("The inventory matches the live Calico configuration.");
  });

  it("moves the cluster to VXLAN with calico_encap_migrate; at -v the progress lines arrive while it waits", async () => {
    const task = {
      calico_encap_migrate: {
        ...DATASTORE,
        ipip_mode: "Never",
        vxlan_mode: "Always",
        network_backend: "vxlan",
        wait_sleep: 1,
        wait_timeout: 120,
      },
    };
    const check = await play(lab, task, ["--check", "--diff"]);
    expect(check.result.changed, check.output).to.equal(true);
    expect(check.output).to.match(/^\+\+\+ after/m);

    const r = await play(lab, task, ["-v"]);
    expect(r.exitCode, r.output).to.equal(0);
    expect(r.result.failed, String(r.result.msg)).to.not.equal(true);
    expect(r.result.changed).to.equal(true);
    expect(r.result.migrated_to).to.deep.equal({
      backend: "vxlan",
      pools: [{ name: "default-pool", ipip_mode: "Never", vxlan_mode: "Always" }],
    });
    const progress = r.lines.filter((l) => /nodes converged \(\d+ s\)/.test(l.text));
    expect(progress.length, r.output).to.be.greaterThan(3);
    expect(progress[0]?.text).to.match(
      /^<node-1> (before the first write|step \d+\/\d+ '.+'): [0-3] of 3 nodes converged \(\d+ s\)/,
    );
    expect(r.output).to.match(
      /<node-1> step 2\/\d+ 'Switch IPPool default-pool to ipipMode Never, vxlanMode Always.*': [0-3] of 3 nodes converged \(\d+ s\)/,
    );
    // Live: the first progress line came well before the task's result.
    const resultLine = r.lines.find((l) => /^changed: \[node-1\]/.test(l.text));
    expect(resultLine, r.output).to.not.equal(undefined);
    expect(resultLine!.ms - progress[0]!.ms).to.be.greaterThan(3000);
    console.log(`      ${progress[0]?.text}\n      ${progress.at(-1)?.text}`);
    console.log(
      `      ${progress.length} progress lines; the first ${((resultLine!.ms - progress[0]!.ms) / 1000).toFixed(1)} s before the result; playbook ${(r.totalMs / 1000).toFixed(1)} s`,
    );
  });
});
