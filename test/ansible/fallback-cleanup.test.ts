// migrate.yml's BIRD-path fallback is removed from every reachable host whatever another host did (issue 52 item 1):
// the play's any_errors_fatal used to apply inside its always: too, so one host failing its removal made every other
// host skip theirs, and the fallback stayed everywhere. Three local hosts in check mode (nothing is changed; the
// removal reads the host's rules), one whose Python cannot be found, so that it fails every module task; no cluster,
// so the migration itself cannot run either.

import { expect } from "chai";
import { execa } from "execa";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { ansibleEnv, REPO, VENV_BIN } from "../support/ansible.js";
import { kubesprayTree } from "../support/kubespray.js";

/** migrate.yml with the fallback in check mode on h1 (the control plane), h2 and h3; H2 is h2's host variables. */
async function run(h2: Record<string, unknown> | null): Promise<{ output: string; exitCode: number }> {
  {
    const dir = mkdtempSync(join(tmpdir(), "calico-encap-cleanup-"));
    writeFileSync(
      join(dir, "hosts.yml"),
      stringify({
        all: {
          vars: {
            ansible_connection: "local",
            ansible_become: false,
            ansible_python_interpreter: join(VENV_BIN, "python"),
            kube_network_plugin: "calico",
            calico_encap_calicoctl_path: "/nonexistent/calicoctl.sh",
            calico_encap_kubectl_path: "/nonexistent/kubectl",
            calico_encap_kubespray_tree: kubesprayTree("v2.19.1"),
          },
          children: {
            kube_control_plane: { hosts: { h1: null } },
            kube_node: { hosts: { h2, h3: null } },
            k8s_cluster: { children: { kube_control_plane: null, kube_node: null } },
          },
        },
      }),
    );
    const r = await execa(
      join(VENV_BIN, "ansible-playbook"),
      [
        "-i",
        join(dir, "hosts.yml"),
        "--check",
        "-e",
        "calico_encap_bird_path_fallback=true",
        join(REPO, "ansible", "playbooks", "migrate.yml"),
      ],
      { reject: false, all: true, env: ansibleEnv({ ANSIBLE_ROLES_PATH: join(REPO, "ansible", "roles") }) },
    );
    return { output: r.all ?? "", exitCode: r.exitCode ?? -1 };
  }
}

describe("migrate.yml with the BIRD-path fallback, one host failing its removal", function () {
  this.timeout(180000);
  let output = "";
  let exitCode = -1;
  before(async () => {
    ({ output, exitCode } = await run({ ansible_python_interpreter: "/nonexistent/python" }));
  });

  it("fails the play (a host failed)", () => {
    expect(exitCode, output).to.equal(2);
  });

  it("removes the fallback on the two other hosts", () => {
    for (const h of ["h1", "h3"])
      expect(output, h).to.include(`Fallback removal on ${h}: rules [], routes [] (table 1041, protocol 141).`);
    expect(output).not.to.include("Fallback removal on h2");
  });

  it("names the host where the fallback may be left, and how to remove it by hand", () => {
    expect(output).to.include(
      "The fallback may be left on h2 (its removal failed there, or the host could not be reached). On each, as " +
        "root, once per rule ip -4 rule show lists there: ip -4 rule del priority 1041; then the same for ip -4 rule " +
        "del priority 1040; ip -4 route flush table 1041 proto 141;",
    );
  });
});

describe("migrate.yml with the BIRD-path fallback, the migration failing (a run_once task, which before ansible-core 2.19 ended the play)", function () {
  this.timeout(180000);
  let output = "";
  let exitCode = -1;
  before(async () => {
    ({ output, exitCode } = await run(null));
  });

  it("removes the fallback on every host after the migration failed, then fails the run saying so", () => {
    expect(output).to.match(/fatal: \[h1.*\/nonexistent\/kubectl/);
    const after = output.slice(output.search(/fatal: \[h1.*\/nonexistent\/kubectl/));
    for (const h of ["h1", "h2", "h3"])
      expect(after, h).to.include(`Fallback removal on ${h}: rules [], routes [] (table 1041, protocol 141).`);
    expect(after).to.include("The migration failed (the first error above)");
    expect(after).not.to.include("The fallback may be left on");
    expect(exitCode, output).to.equal(2);
  });
});
