// The lab's control-plane node over real SSH: ansible-playbook reaches node-1 (sshd in its network namespace)
// with the lab's inventory, and calico_pool_check runs there in module mode through the node's own
// Kubespray-like calicoctl.sh and admin.conf. The lab here starts from a shell that sourced another lab's env (an
// etcd lab's, with its admin token, kubeconfig and datastore): lab.sh up uses only what it creates itself.

import { expect } from "chai";
import { execa } from "execa";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { ansibleEnv, REPO, VENV_BIN } from "../support/ansible.js";
import type { Lab } from "../support/lab.js";
import { labDown, labUp, sshNode1 } from "../support/lab.js";

describe("the lab's control-plane node over SSH", function () {
  this.timeout(300000);
  let lab: Lab;
  /** What `. .lab/env` of an earlier etcd lab leaves in a shell: none of it is this lab's. */
  const SOURCED = {
    LAB_PROFILE: "etcd",
    LAB_CALICO_DATASTORE: "etcd",
    LAB_APISERVER_URL: "https://127.0.0.1:1",
    LAB_ADMIN_TOKEN: "0123456789abcdef0123456789abcdef",
    KUBECONFIG: "/nonexistent/earlier-lab/admin.conf",
    DATASTORE_TYPE: "etcdv3",
    ETCD_ENDPOINTS: "http://127.0.0.1:1",
    LAB_CALICOCTL_SH: "/nonexistent/earlier-lab/calicoctl.sh",
    LAB_CALICO_MODULE_DIR: "/nonexistent/earlier-lab/calico",
  };
  before(async () => {
    lab = await labUp("kubespray-2.18", 3, undefined, SOURCED);
  });
  after(labDown);

  it("started from a shell that sourced another lab's env, the lab runs on its own token and kubeconfig", () => {
    expect(lab.profile).to.equal("kubespray-2.18");
    expect(lab.env.LAB_ADMIN_TOKEN).to.match(/^[0-9a-f]{32}$/);
    expect(lab.env.LAB_ADMIN_TOKEN).to.not.equal(SOURCED.LAB_ADMIN_TOKEN);
    expect(lab.kubeconfig).to.equal(join(lab.state, "etc", "kubernetes", "admin.conf"));
    expect(lab.env.DATASTORE_TYPE).to.equal("kubernetes");
  });

  it("the lab kubelet stops at once, naming the 401, when the apiserver refuses its token", async () => {
    // A copy of this lab's env with another token, no data-plane nodes: the kubelet's first list is refused.
    const state = mkdtempSync(join(tmpdir(), "calico-encap-kubelet-401-"));
    writeFileSync(
      join(state, "env"),
      readFileSync(join(lab.state, "env"), "utf8").replace(
        /^export LAB_ADMIN_TOKEN=.*$/m,
        `export LAB_ADMIN_TOKEN=${SOURCED.LAB_ADMIN_TOKEN}`,
      ),
    );
    mkdirSync(join(state, "pki"), { recursive: true });
    cpSync(join(lab.state, "pki", "apiserver"), join(state, "pki", "apiserver"), {
      recursive: true,
    });
    const started = Date.now();
    const r = await execa("node", [join(REPO, "dist", "test", "lab", "kubelet", "main.js")], {
      env: { LAB_STATE: state, LAB_DATAPLANE_NODES: "0" },
      reject: false,
      timeout: 60000,
      all: true,
    });
    expect(r.timedOut, r.all).to.equal(false);
    expect(r.exitCode, r.all).to.equal(1);
    expect(r.all).to.match(/answered 401 Unauthorized/);
    expect(Date.now() - started, "it stops within seconds").to.be.below(20000);
  });

  it("answers ansible's ping with the lab's inventory", async () => {
    const r = await execa(
      join(VENV_BIN, "ansible"),
      ["-i", join(lab.state, "inventory.ini"), "kube_control_plane", "-m", "ping"],
      {
        env: ansibleEnv(),
        reject: false,
      },
    );
    expect(r.exitCode, r.stdout + r.stderr).to.equal(0);
    expect(r.stdout).to.match(/node-1 \| SUCCESS/);
  });

  it("reads none of root's shell startup files in SSH sessions (a stale pyenv lock in ~/.bashrc cannot hang them)", async () => {
    const home = (await execa("getent", ["passwd", "root"])).stdout.split(":")[5] ?? "/root";
    const existing = [".bashrc", ".bash_profile", ".bash_login", ".profile"].filter((f) => {
      try {
        return readFileSync(join(home, f)).length > 0;
      } catch {
        return false;
      }
    });
    const sizes = existing.map((f) => `wc -c < ${home}/${f}`).join("; ");
    const r = await sshNode1(lab, `${sizes}; echo end`);
    expect(r.exitCode, r.stderr).to.equal(0);
    // Each file that exists (non-empty) on the host reads as empty in node-1's sessions.
    expect(r.stdout.split("\n")).to.deep.equal([...existing.map(() => "0"), "end"]);
  });

  it("runs calico_pool_check on node-1 through its calicoctl.sh, as a Kubespray play would", async () => {
    const dir = mkdtempSync(join(tmpdir(), "calico-encap-ssh-"));
    const out = join(dir, "result.json");
    const play = [
      {
        hosts: "kube_control_plane",
        gather_facts: false,
        tasks: [
          {
            name: "Check the inventory against the live cluster",
            calico_pool_check: {
              ipip_mode: "Always",
              vxlan_mode: "Never",
              network_backend: "bird",
              pool_blocksize: 24,
              calicoctl_path: "{{ bin_dir }}/calicoctl.sh",
              kubectl_path: "{{ bin_dir }}/kubectl",
              kubeconfig: "{{ kube_config_dir }}/admin.conf",
            },
            vars: { calico_encap_mode: "module" },
            environment: { CALICO_ENCAP_BACKEND: join(REPO, "dist", "src", "cli.js") },
            run_once: true,
            register: "check",
          },
          {
            name: "Save the result on the controller",
            "ansible.builtin.copy": { content: "{{ check | to_json }}", dest: out, mode: "0600" },
            delegate_to: "localhost",
            run_once: true,
          },
        ],
      },
    ];
    const playbook = join(dir, "play.yml");
    writeFileSync(playbook, stringify(play));
    const r = await execa(
      join(VENV_BIN, "ansible-playbook"),
      ["-i", join(lab.state, "inventory.ini"), playbook],
      {
        env: ansibleEnv(),
        reject: false,
        all: true,
      },
    );
    expect(r.exitCode, r.all).to.equal(0);
    const result = JSON.parse(readFileSync(out, "utf8")) as {
      msg: string;
      cluster: { client: string };
    };
    expect(result.msg).to.equal("The inventory matches the live Calico configuration.");
    expect(result.cluster.client).to.equal("calicoctl");
  });
});
