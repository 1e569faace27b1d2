import { expect } from "chai";
import type { CommandRunner } from "../../../src/cluster/runner.js";
import type { OptionFlag } from "../../../src/human/flags.js";
import { optionFlags } from "../../../src/human/flags.js";
import { helpText } from "../../../src/human/help.js";
import { resolveOptions } from "../../../src/human/options.js";
import type { VarsFile } from "../../../src/human/vars.js";
import { optionsFromVars, parseVarsText, readVarsFiles } from "../../../src/human/vars.js";
import { calicoEncapMigrate } from "../../../src/modules/calico_encap_migrate.js";
import { calicoPoolCheck } from "../../../src/modules/calico_pool_check.js";
import type { ModuleDefinition } from "../../../src/protocol/module.js";
import { executeModule } from "../../../src/protocol/module.js";

const NO_COMMANDS: CommandRunner = {
  run: () => Promise.reject(new Error("no command may run in this test")),
};
const CHECK = calicoPoolCheck(NO_COMMANDS) as ModuleDefinition<unknown>;
const FLAGS: OptionFlag[] = optionFlags(CHECK.optionsSchema);
const MIGRATE_FLAGS: OptionFlag[] = optionFlags(
  (calicoEncapMigrate(NO_COMMANDS) as ModuleDefinition<unknown>).optionsSchema,
);

/** A group_vars file as a Kubespray 2.18 inventory has it. */
const K8S_NET_CALICO = `---
# Calico: the 2.18 cluster's settings, pinned before the upgrade
calico_ipip_mode: 'Always'
calico_vxlan_mode: 'Never'
calico_network_backend: bird
calico_pool_blocksize: 24
nat_outgoing: yes
calico_cni_name: k8s-pod-network   # not an option: ignored
# calico_pool_name: default-pool
`;

function file(text: string, path = "k8s-net-calico.yml"): VarsFile {
  const r = parseVarsText(text, path);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe("human front: --vars", () => {
  it("maps a group_vars file's variables to options through x-kubespray-variable", () => {
    const r = optionsFromVars(FLAGS, [file(K8S_NET_CALICO)]);
    expect(r.unresolved).to.deep.equal({});
    expect(r.options).to.deep.equal({
      ipip_mode: { value: "Always", source: "calico_ipip_mode in k8s-net-calico.yml" },
      vxlan_mode: { value: "Never", source: "calico_vxlan_mode in k8s-net-calico.yml" },
      network_backend: { value: "bird", source: "calico_network_backend in k8s-net-calico.yml" },
      pool_blocksize: { value: 24, source: "calico_pool_blocksize in k8s-net-calico.yml" },
      nat_outgoing: { value: true, source: "nat_outgoing in k8s-net-calico.yml" },
    });
  });

  it("reads YAML 1.1 as Ansible does: yes and off are booleans", () => {
    expect(file("nat_outgoing: off\nipv6_stack: yes\n").vars).to.deep.equal({
      nat_outgoing: false,
      ipv6_stack: true,
    });
  });

  it("lets a later file override an earlier one", () => {
    const r = optionsFromVars(FLAGS, [
      file("calico_ipip_mode: Always\ncalico_pool_name: a1\n", "a.yml"),
      file("calico_ipip_mode: Never\n", "b.yml"),
    ]);
    expect(r.options.ipip_mode).to.deep.equal({
      value: "Never",
      source: "calico_ipip_mode in b.yml",
    });
    expect(r.options.pool_name?.value).to.equal("a1");
  });

  it("follows a bare reference to another variable of the files", () => {
    const r = optionsFromVars(FLAGS, [
      file("kube_pods_subnet: 10.244.0.0/16\n", "k8s-cluster.yml"),
      file('calico_pool_cidr: "{{ kube_pods_subnet }}"\n'),
    ]);
    expect(r.options.pool_cidr?.value).to.equal("10.244.0.0/16");
  });

  it("cannot evaluate other Jinja, and says which flag to give instead", () => {
    const r = optionsFromVars(FLAGS, [
      file("calico_pool_cidr: \"{{ kube_pods_subnet | default('10.0.0.0/16') }}\"\n"),
    ]);
    expect(r.options).to.not.have.property("pool_cidr");
    expect(r.unresolved.pool_cidr).to.equal(
      `calico_pool_cidr in k8s-net-calico.yml is "{{ kube_pods_subnet | default('10.0.0.0/16') }}", a Jinja expression calico-encap cannot evaluate outside Ansible: give --pool-cidr instead, or a plain value in the file`,
    );
    const unresolvedOnly = optionsFromVars(FLAGS, [
      file('calico_pool_cidr: "{{ undefined_var }}"'),
    ]);
    expect(unresolvedOnly.unresolved).to.have.property("pool_cidr");
  });

  it("refuses what is not a group_vars file, saying why", () => {
    expect(parseVarsText("- a\n- b\n", "list.yml")).to.deep.equal({
      ok: false,
      error: `--vars list.yml is not a mapping of variables (a group_vars file has "name: value" lines)`,
    });
    const bad = parseVarsText("a: [1\n", "bad.yml");
    expect(bad.ok).to.equal(false);
    expect(!bad.ok && bad.error).to.match(/^--vars bad\.yml is not valid YAML: /);
    expect(parseVarsText("$ANSIBLE_VAULT;1.1;AES256\n6162\n", "v.yml")).to.deep.equal({
      ok: false,
      error: "--vars v.yml is encrypted with ansible-vault; decrypt it first",
    });
    expect(file("# only comments\n").vars).to.deep.equal({});
  });

  it("says which file cannot be read", async () => {
    const r = await readVarsFiles(["/nonexistent/k8s-net-calico.yml"]);
    expect(r.ok).to.equal(false);
    expect(!r.ok && r.error).to.match(
      /^--vars \/nonexistent\/k8s-net-calico\.yml cannot be read: ENOENT/,
    );
  });
});

describe("human front: options from --vars and flags", () => {
  const fromFile = optionsFromVars(FLAGS, [file(K8S_NET_CALICO)]);

  it("lets a flag override the file", () => {
    const r = resolveOptions(CHECK, fromFile, {
      ipip_mode: { value: "Never", source: "--ipip-mode" },
    });
    expect(r.ok && r.options).to.include({ ipip_mode: "Never", vxlan_mode: "Never" });
    expect(r.ok && r.converted).to.include({ pool_blocksize: 24, nat_outgoing: true });
  });

  it("converts values the module's way (strings from flags)", () => {
    const r = resolveOptions(
      CHECK,
      { options: {}, unresolved: {} },
      {
        pool_blocksize: { value: "24", source: "--pool-blocksize" },
        nat_outgoing: { value: "no", source: "--nat-outgoing" },
      },
    );
    expect(r.ok && r.converted).to.deep.equal({ pool_blocksize: 24, nat_outgoing: false });
  });

  it("refuses a bad value with the module's own message, naming the flag", async () => {
    const r = resolveOptions(CHECK, fromFile, {
      ipip_mode: { value: "always", source: "--ipip-mode" },
    });
    const values = Object.fromEntries(
      Object.entries(fromFile.options).map(([k, g]) => [k, g.value]),
    );
    const module = await executeModule(CHECK, { ...values, ipip_mode: "always" });
    expect(module.msg).to.equal(
      "value of ipip_mode must be one of: Always, CrossSubnet, Never, got: always",
    );
    expect(r).to.deep.equal({ ok: false, error: `--ipip-mode: ${String(module.msg)}` });
  });

  it("names the variable and file of a bad value from --vars", () => {
    const bad = optionsFromVars(FLAGS, [file("calico_pool_blocksize: 64\n", "g.yml")]);
    expect(resolveOptions(CHECK, bad, {})).to.deep.equal({
      ok: false,
      error:
        "calico_pool_blocksize in g.yml: value of pool_blocksize must be between 20 and 32, got: 64",
    });
    const notInt = resolveOptions(
      CHECK,
      { options: {}, unresolved: {} },
      {
        pool_blocksize: { value: "big", source: "--pool-blocksize" },
      },
    );
    expect(notInt).to.deep.equal({
      ok: false,
      error:
        "--pool-blocksize: argument 'pool_blocksize' is of type <class 'str'> and we were unable to convert to int: 'big' cannot be converted to an int",
    });
  });

  it("refuses an unevaluable Jinja value unless a flag gives the option", () => {
    const jinja = optionsFromVars(FLAGS, [file('calico_pool_cidr: "{{ a ~ b }}"\n')]);
    const refused = resolveOptions(CHECK, jinja, {});
    expect(refused.ok).to.equal(false);
    expect(!refused.ok && refused.error).to.include("give --pool-cidr instead");
    const given = resolveOptions(CHECK, jinja, {
      pool_cidr: { value: "10.0.0.0/16", source: "--pool-cidr" },
    });
    expect(given.ok && given.options).to.deep.equal({ pool_cidr: "10.0.0.0/16" });
  });
});

describe("human front: --vars follows Kubespray's fallbacks (x-kubespray-fallback)", () => {
  it("takes pool_cidr from kube_pods_subnet when calico_pool_cidr is unset", () => {
    const r = optionsFromVars(FLAGS, [
      file("kube_pods_subnet: 10.240.0.0/16\n", "k8s-cluster.yml"),
    ]);
    expect(r).to.deep.equal({
      options: {
        pool_cidr: { value: "10.240.0.0/16", source: "kube_pods_subnet in k8s-cluster.yml" },
      },
      unresolved: {},
    });
  });

  it("lets calico_pool_cidr win over kube_pods_subnet, whichever file comes last", () => {
    for (const files of [
      [
        file("calico_pool_cidr: 10.1.0.0/16\n", "a.yml"),
        file("kube_pods_subnet: 10.2.0.0/16\n", "b.yml"),
      ],
      [
        file("kube_pods_subnet: 10.2.0.0/16\n", "b.yml"),
        file("calico_pool_cidr: 10.1.0.0/16\n", "a.yml"),
      ],
    ])
      expect(optionsFromVars(FLAGS, files).options.pool_cidr).to.deep.equal({
        value: "10.1.0.0/16",
        source: "calico_pool_cidr in a.yml",
      });
  });

  it("takes the IPv6 pool's cidr and ipv6_stack from their fallbacks, the calico variable first", () => {
    const older = optionsFromVars(FLAGS, [
      file("enable_dual_stack_networks: yes\nkube_pods_subnet_ipv6: fd00:1::/112\n", "all.yml"),
    ]);
    expect(older.options.ipv6_stack).to.deep.equal({
      value: true,
      source: "enable_dual_stack_networks in all.yml",
    });
    expect(older.options.pool_cidr_ipv6?.value).to.equal("fd00:1::/112");
    const both = optionsFromVars(MIGRATE_FLAGS, [
      file("enable_dual_stack_networks: true\nipv6_stack: false\n", "all.yml"),
    ]);
    expect(both.options.ipv6_stack).to.deep.equal({
      value: false,
      source: "ipv6_stack in all.yml",
    });
  });

  it("builds calicoctl_path and kubectl_path from bin_dir, kubeconfig from kube_config_dir", () => {
    for (const flags of [FLAGS, MIGRATE_FLAGS]) {
      const r = optionsFromVars(flags, [
        file("bin_dir: /opt/bin\nkube_config_dir: /etc/k8s\n", "all.yml"),
      ]);
      expect(r.options).to.deep.equal({
        calicoctl_path: { value: "/opt/bin/calicoctl.sh", source: "bin_dir in all.yml" },
        kubectl_path: { value: "/opt/bin/kubectl", source: "bin_dir in all.yml" },
        kubeconfig: { value: "/etc/k8s/admin.conf", source: "kube_config_dir in all.yml" },
      });
    }
    // bin_dir as a bare reference is followed; nothing set leaves the schema's default.
    const ref = optionsFromVars(FLAGS, [file('base: /srv\nbin_dir: "{{ base }}"\n', "all.yml")]);
    expect(ref.options.kubectl_path?.value).to.equal("/srv/kubectl");
    expect(optionsFromVars(FLAGS, [file("other: 1\n")]).options).to.deep.equal({});
  });

  it("cannot build a path from Jinja or from what is not text, and names the flag to give", () => {
    const jinja = optionsFromVars(FLAGS, [file('bin_dir: "{{ prefix }}/bin"\n', "all.yml")]);
    expect(jinja.unresolved.calicoctl_path).to.equal(
      `bin_dir in all.yml is "{{ prefix }}/bin", a Jinja expression calico-encap cannot evaluate outside Ansible: give --calicoctl instead, or a plain value in the file`,
    );
    expect(jinja.options).to.deep.equal({});
    const list = optionsFromVars(FLAGS, [file("bin_dir: [a, b]\n", "all.yml")]);
    expect(list.unresolved.kubectl_path).to.equal(
      `bin_dir in all.yml is ["a","b"], not text to make kubectl_path ({bin_dir}/kubectl) from: give --kubectl instead, or a plain value in the file`,
    );
    const given = resolveOptions(CHECK, jinja, {
      calicoctl_path: { value: "/x/calicoctl.sh", source: "--calicoctl" },
      kubectl_path: { value: "/x/kubectl", source: "--kubectl" },
    });
    expect(given.ok && given.options).to.deep.equal({
      calicoctl_path: "/x/calicoctl.sh",
      kubectl_path: "/x/kubectl",
    });
  });

  it("lets a flag win over the calico variable and the fallback", () => {
    const fromFile = optionsFromVars(FLAGS, [
      file(
        "kube_pods_subnet: 10.2.0.0/16\ncalico_pool_cidr: 10.1.0.0/16\nbin_dir: /opt/bin\nkube_config_dir: /etc/k8s\n",
        "all.yml",
      ),
    ]);
    const r = resolveOptions(CHECK, fromFile, {
      pool_cidr: { value: "10.3.0.0/16", source: "--pool-cidr" },
      calicoctl_path: { value: "/usr/bin/calicoctl", source: "--calicoctl" },
    });
    expect(r.ok && r.options).to.deep.equal({
      pool_cidr: "10.3.0.0/16",
      calicoctl_path: "/usr/bin/calicoctl",
      kubectl_path: "/opt/bin/kubectl",
      kubeconfig: "/etc/k8s/admin.conf",
    });
  });

  it("--help names the fallback after the variable", () => {
    const text = helpText("check", CHECK.optionsSchema, FLAGS).replace(/\s+/g, " ");
    expect(text).to.include("--vars: calico_pool_cidr, else kube_pods_subnet]");
    expect(text).to.include("--vars: ipv6_stack, else enable_dual_stack_networks]");
    expect(text).to.include("--vars: {bin_dir}/calicoctl.sh]");
    expect(text).to.include("--vars: {kube_config_dir}/admin.conf]");
  });
});
