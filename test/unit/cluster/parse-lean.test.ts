// The poll's lean reads: kubectl's own output, recorded on the lab (test/fixtures/lean, recorded beside the same
// read as `-o json` at the same moment), gives what the whole objects gave; every malformed output is a
// DatastoreError naming the command.

import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Json } from "../../../src/cluster/decode.js";
import { DatastoreError } from "../../../src/cluster/errors.js";
import {
  NODES_JSONPATH,
  PODS_TEMPLATE,
  parseLeanNodes,
  parseLeanPods,
  readyNodes,
} from "../../../src/cluster/parse-lean.js";
import { parseKubeNode, parseNode } from "../../../src/cluster/parse-migration.js";
import { leanNodes, leanPods } from "../../support/lean.js";
import { FIXTURES } from "../../support/recorded.js";

const LEAN = join(FIXTURES, "..", "lean", "kubespray-2.18");
const read = (file: string): string => readFileSync(join(LEAN, file), "utf8");
const itemsOf = (file: string): Json[] => (JSON.parse(read(file)) as { items: Json[] }).items;

const NODES_ARGV = ["kubectl", "get", "nodes", "-o", `jsonpath=${NODES_JSONPATH}`];
const PODS_ARGV = ["kubectl", "get", "pods", "-o", `go-template=${PODS_TEMPLATE}`];

function failure(f: () => unknown): DatastoreError {
  try {
    f();
  } catch (e) {
    expect(e).to.be.instanceOf(DatastoreError);
    return e as DatastoreError;
  }
  throw new Error("expected a DatastoreError");
}

describe("the poll's lean reads (kubectl jsonpath and go-template)", () => {
  it("kubectl's recorded output is what the test stand-in renders from the same objects as JSON", () => {
    expect(leanNodes(itemsOf("kubectl-get-nodes.json"))).to.equal(
      read("kubectl-get-nodes-lean.txt"),
    );
    expect(leanPods(itemsOf("kubectl-get-pods.json"))).to.equal(read("kubectl-get-pods-lean.txt"));
  });

  it("gives the nodes, their tunnel addresses, labels, taints and addresses the whole Nodes gave", () => {
    const whole = itemsOf("kubectl-get-nodes.json");
    const lean = parseLeanNodes(NODES_ARGV, read("kubectl-get-nodes-lean.txt"));
    expect(lean.map(parseNode)).to.deep.equal(whole.map(parseNode));
    expect(lean.map(parseKubeNode)).to.deep.equal(whole.map(parseKubeNode));
    expect(lean.map(parseNode).map((n) => n.tunnel.ipip)).to.satisfy((a: unknown[]) =>
      a.every((x) => typeof x === "string"),
    );
  });

  it("gives the nodes whose calico-node pod is ready", () => {
    const pods = parseLeanPods(PODS_ARGV, read("kubectl-get-pods-lean.txt"));
    expect([...readyNodes(pods)].sort()).to.deep.equal(["node-1", "node-2", "node-3"]);
  });

  it("is a fraction of the whole objects' bytes", () => {
    expect(read("kubectl-get-pods-lean.txt").length * 100).to.be.below(
      read("kubectl-get-pods.json").length,
    );
    expect(read("kubectl-get-nodes-lean.txt").length * 3).to.be.below(
      read("kubectl-get-nodes.json").length,
    );
  });

  it("reads an empty list as no object, and a missing field as an empty one", () => {
    expect(parseLeanNodes(NODES_ARGV, "calico-encap nodes\nend\n")).to.deep.equal([]);
    expect(parseLeanPods(PODS_ARGV, "calico-encap pods\nend\n")).to.deep.equal([]);
    const [bare] = parseLeanNodes(NODES_ARGV, "calico-encap nodes\nn-1\t\t\t\t\nend\n");
    expect(parseKubeNode(bare as Json)).to.deep.equal({ name: "n-1", labels: {}, taints: [] });
    expect(parseNode(bare as Json)).to.deep.include({
      name: "n-1",
      tunnel: { ipip: null, vxlan: null, vxlanV6: null },
      addresses: [],
    });
    expect(leanNodes([{ metadata: { name: "n-1" } }])).to.equal(
      "calico-encap nodes\nn-1\t\t\t\t\nend\n",
    );
  });

  it("keeps label and annotation values with tabs, newlines and quotes, escaped in their JSON", () => {
    const odd = 'a\tb\nc "d" <e> & \\f';
    const text = leanNodes([
      {
        metadata: {
          name: "node.example-1",
          labels: { "example.com/odd": "v" },
          annotations: { "projectcalico.org/IPv4IPIPTunnelAddr": "10.0.0.1", note: odd },
        },
        spec: { taints: [{ key: "k", value: "v", effect: "NoSchedule" }] },
      },
    ]);
    expect(text.split("\n")).to.have.length(4);
    const [node] = parseLeanNodes(NODES_ARGV, text);
    expect(node).to.deep.nested.include({ "metadata.annotations.note": odd });
    expect(parseNode(node as Json).tunnel.ipip).to.equal("10.0.0.1");
    expect(parseKubeNode(node as Json).taints).to.deep.equal([
      { key: "k", value: "v", effect: "NoSchedule" },
    ]);
  });

  it("counts a pod ready only when its Ready condition is True, it is bound and not being deleted", () => {
    const pods = parseLeanPods(
      PODS_ARGV,
      [
        "calico-encap pods",
        "node-1\t\tready",
        "node-2\t\t",
        "node-3\tdeleting\tready",
        "\t\t",
        "end",
        "",
      ].join("\n"),
    );
    expect([...readyNodes(pods)]).to.deep.equal(["node-1"]);
    expect(pods[3]).to.deep.equal({ nodeName: "", deleting: false, ready: false });
  });

  it("fails with the command and what it expected on anything else", () => {
    const nodes = (stdout: string) => failure(() => parseLeanNodes(NODES_ARGV, stdout));
    const pods = (stdout: string) => failure(() => parseLeanPods(PODS_ARGV, stdout));
    for (const e of [
      nodes(""),
      nodes('{"kind":"NodeList","items":[]}'),
      nodes("calico-encap nodes\nn-1\t{}\t{}\t[]\t[]\n"),
      nodes("calico-encap nodes\nn\t1\t{}\t{}\t[]\t[]\nend\n"),
      nodes("calico-encap nodes\nn-1\tmap[a:b]\t{}\t[]\t[]\nend\n"),
      nodes("calico-encap nodes\nn-1\t[]\t{}\t[]\t[]\nend\n"),
      nodes("calico-encap nodes\nn-1\t{}\t{}\t{}\t[]\nend\n"),
      nodes("calico-encap nodes\n\t{}\t{}\t[]\t[]\nend\n"),
      nodes("calico-encap nodes\nn 1\t{}\t{}\t[]\t[]\nend\n"),
      nodes("calico-encap pods\nend\n"),
    ])
      expect(e.message).to.include("kubectl get nodes -o 'jsonpath=calico-encap nodes");
    for (const e of [
      pods(""),
      pods("calico-encap pods\nnode-1\t\tready\n"),
      pods("calico-encap pods\nnode-1\tready\nend\n"),
      pods("calico-encap pods\nnode-1\t\tTrue\nend\n"),
      pods("calico-encap pods\nnode-1\tgone\t\nend\n"),
      pods("calico-encap pods\nnode 1\t\tready\nend\n"),
    ])
      expect(e.message).to.include("kubectl get pods -o 'go-template=calico-encap pods");
    expect(nodes("calico-encap nodes\nn-1\tmap[a:b]\t{}\t[]\t[]\nend\n").message).to.include(
      "kubectl 1.19 or later",
    );
  });
});
