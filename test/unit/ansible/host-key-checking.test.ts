// Host key checking (issue 38): the repository's ansible.cfg keeps Ansible's default (checked); only what the lab
// generates for its throwaway nodes turns it off: the lab's inventory (test/lab/net.sh) and the ansible.cfg files the
// tests write for an installed collection (test/support/collection.ts) and for Kubespray's roles (kubespray.ts).

import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../../support/ansible.js";

const read = (path: string): string => readFileSync(join(REPO, path), "utf8");

describe("host key checking", () => {
  it("the repository's ansible.cfg leaves it at Ansible's default", () => {
    const settings = read("ansible.cfg")
      .split("\n")
      .filter((l) => !l.startsWith("#"));
    expect(settings.join("\n")).to.not.match(/host_key_checking/i);
  });

  it("the lab's inventory turns it off for the lab's nodes, in Ansible's variable and in ssh's options", () => {
    const inventory = /write_inventory\(\) \{\n[^]*?\nEOF\n/.exec(read("test/lab/net.sh"))?.[0] ?? "";
    expect(inventory).to.include("\nansible_host_key_checking=false\n");
    expect(inventory).to.include("-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null");
  });

  it("the configs the tests generate for the lab turn it off themselves", () => {
    for (const path of ["test/support/collection.ts", "test/support/kubespray.ts", "test/lab/demo.sh"])
      expect(read(path), path).to.match(/host_key_checking = False/);
  });
});
