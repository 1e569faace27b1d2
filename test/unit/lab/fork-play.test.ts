import { expect } from "chai";
import {
  forkPlaybooks,
  insertPlay,
  placementOf,
  playPlacements,
  readmePlay,
} from "../../support/fork-play.js";

// README's play for a fork, read from README's text (test/ansible/fork-play.test.ts runs it in each tree).
describe("README's play for a fork (fork-play.ts)", () => {
  it("covers every release line from v2.18 to v2.31 once, each row naming a play README has", () => {
    const rows = playPlacements();
    for (let minor = 18; minor <= 31; minor++)
      expect(
        rows.filter((r) => r.minors[0] <= minor && minor <= r.minors[1]),
        `v2.${minor}`,
      ).to.have.length(1);
    for (const r of rows)
      expect(readmePlay(r.play)).to.match(/^- name: Check Calico's encapsulation/);
  });

  it("places v2.19 in the root playbooks after legacy_groups.yml, v2.31 in playbooks/ after boilerplate.yml", () => {
    expect(placementOf("v2.19.1")).to.include({
      root: true,
      anchor: "legacy_groups.yml",
      play: "A",
    });
    expect(forkPlaybooks(placementOf("v2.31.0"))).to.deep.equal([
      "playbooks/cluster.yml",
      "playbooks/upgrade_cluster.yml",
      "playbooks/scale.yml",
    ]);
    expect(() => placementOf("v2.40.0")).to.throw(
      "README.md's play table has no row for Kubespray v2.40.0",
    );
  });

  it("inserts the play right after the item that imports the anchor, before the next item", () => {
    const book = [
      "---",
      "- name: Check ansible version",
      "  import_playbook: ansible_version.yml",
      "",
      "- name: Ensure compatibility with old groups",
      "  import_playbook: legacy_groups.yml",
      "",
      "- hosts: bastion[0]",
      "  roles: []",
    ].join("\n");
    const out = insertPlay(
      book,
      "legacy_groups.yml",
      "- name: README's play\n  hosts: k8s_cluster\n",
    );
    expect(out.split("\n").slice(5, 10)).to.deep.equal([
      "  import_playbook: legacy_groups.yml",
      "",
      "- name: README's play",
      "  hosts: k8s_cluster",
      "",
    ]);
    expect(out).to.match(/k8s_cluster\n\n\n?- hosts: bastion/);
    expect(() => insertPlay(book, "boilerplate.yml", "- name: x\n")).to.throw(
      "the playbook imports no boilerplate.yml",
    );
  });
});
