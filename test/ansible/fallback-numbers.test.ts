// The BIRD-path fallback's numbers (issue 52 item 7): calico_encap_fallback_table, _priority and _protocol are
// checked against ranges that keep the kernel's default, main and local tables, Felix's route tables and rule, main's
// rule and the known routing protocols out, before anything is read or changed on the host. The role's
// fallback_remove on localhost (its first step reads, then removes only what the fallback adds); in range, in check
// mode, it goes on to read the host's rules.

import { expect } from "chai";
import { execa } from "execa";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { ansibleEnv, REPO, VENV_BIN } from "../support/ansible.js";

async function remove(vars: Record<string, number>, check = true): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-fallback-"));
  writeFileSync(
    join(dir, "play.yml"),
    stringify([
      {
        hosts: "localhost",
        gather_facts: false,
        vars,
        tasks: [{ "ansible.builtin.include_role": { name: "calico_encap", tasks_from: "fallback_remove" } }],
      },
    ]),
  );
  const r = await execa(
    join(VENV_BIN, "ansible-playbook"),
    [
      "-i",
      "localhost,",
      "-c",
      "local",
      "-e",
      `ansible_python_interpreter=${join(VENV_BIN, "python")}`,
      ...(check ? ["--check"] : []),
      join(dir, "play.yml"),
    ],
    { reject: false, all: true, env: ansibleEnv({ ANSIBLE_ROLES_PATH: join(REPO, "ansible", "roles") }) },
  );
  return `exit ${r.exitCode}\n${r.all ?? ""}`;
}

const READ = "Read the host's IPv4 routing rules";

describe("the BIRD-path fallback's table, priority and protocol, checked before anything is read", function () {
  this.timeout(120000);
  for (const [what, vars] of [
    ["main's table 254", { calico_encap_fallback_table: 254 }],
    ["a table in Felix's default routeTableRange (1-250)", { calico_encap_fallback_table: 250 }],
    ["WireGuard's rule priority 99", { calico_encap_fallback_priority: 99 }],
    ["a priority whose next one is main's 32766", { calico_encap_fallback_priority: 32765 }],
    ["Felix's route protocol 80", { calico_encap_fallback_protocol: 80 }],
    ["bgp's protocol 186", { calico_encap_fallback_protocol: 186 }],
  ] as [string, Record<string, number>][])
    it(`refuses ${what}, naming the ranges, and reads nothing`, async () => {
      const out = await remove(vars);
      expect(out).to.match(/^exit 2/);
      expect(out).to.include("expected a table from 251 to 4294967295 but not 253, 254 or 255");
      expect(out).to.include("Nothing was read or changed.");
      expect(out).not.to.include(READ);
    });

  it("can fail: the bounds themselves (table 251, priority 101 and 32764, protocol 100 and 185) pass to the reads", async () => {
    for (const vars of [
      { calico_encap_fallback_table: 251, calico_encap_fallback_priority: 101, calico_encap_fallback_protocol: 100 },
      { calico_encap_fallback_table: 4294967295, calico_encap_fallback_priority: 32764, calico_encap_fallback_protocol: 185 },
    ]) {
      const out = await remove(vars);
      expect(out, JSON.stringify(vars)).not.to.include("Nothing was read or changed.");
      expect(out, JSON.stringify(vars)).to.include(READ);
    }
  });
});
