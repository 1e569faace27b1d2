import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Json } from "../../../src/cluster/decode.js";
import { parseNode, parseRollout, templateBackend } from "../../../src/cluster/parse-migration.js";
import { FIXTURES } from "../../support/recorded.js";

function fixture(profile: string, file: string): Json {
  return JSON.parse(readFileSync(join(FIXTURES, profile, file), "utf8")) as Json;
}

/** The first address of a /24 block of the kubespray-2.18 pool, 10.233.64.0/18. */
const IPIP_TUNNEL = /^10\.233\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\.0$/;

describe("parsing what the migration waits on (recorded lab output)", () => {
  it("reads IPIP tunnel addresses from Kubernetes Node annotations (kubectl)", () => {
    const nodes = (fixture("kubespray-2.18", "kubectl-get-nodes.json").items as Json[]).map(
      parseNode,
    );
    expect(nodes.map((n) => n.name)).to.deep.equal(["node-1", "node-2", "node-3"]);
    // Calico IPAM picks each node's block; its tunnel address is the block's first address.
    expect(nodes[0]?.tunnel).to.deep.include({ vxlan: null, vxlanV6: null });
    expect(nodes[0]?.tunnel.ipip).to.match(IPIP_TUNNEL);
    expect(nodes[0]?.labels["kubernetes.io/hostname"]).to.equal("node-1");
    expect(nodes[0]?.addresses, "the node's own address, never its hostname").to.satisfy(
      (a: string[]) => a.length > 0 && a.every((x) => /^\d+\.\d+\.\d+\.\d+$/.test(x)),
    );
  });

  it("reads the same from Calico Nodes (calicoctl), and VXLAN ones on a 2.19 cluster", () => {
    const calico = (fixture("kubespray-2.18", "calicoctl-get-nodes.json").items as Json[]).map(
      parseNode,
    );
    expect(calico[1]?.tunnel.ipip).to.match(IPIP_TUNNEL);
    expect(
      calico.map((n) => n.tunnel.ipip),
      "the same addresses as the Node annotations",
    ).to.deep.equal(
      (fixture("kubespray-2.18", "kubectl-get-nodes.json").items as Json[])
        .map(parseNode)
        .map((n) => n.tunnel.ipip),
    );
    expect(calico[1]?.addresses?.[0], "spec.bgp.ipv4Address without its prefix").to.match(
      /^\d+\.\d+\.\d+\.\d+$/,
    );
    const vxlan = (fixture("kubespray-2.19", "kubectl-get-nodes.json").items as Json[]).map(
      parseNode,
    );
    expect(vxlan[0]?.tunnel.vxlan).to.be.a("string");
    expect(vxlan[0]?.tunnel.ipip).to.equal(null);
  });

  it("keeps each node's subnet as calico-node wrote it (spec.bgp.ipv4Address, the IPv4Address annotation)", () => {
    const calico = (fixture("kubespray-2.18", "calicoctl-get-nodes.json").items as Json[]).map(
      parseNode,
    );
    // The underlay record-fixtures.sh gives its lab.
    expect(calico[0]?.subnets).to.deep.equal(["172.31.245.11/24"]);
    const kube = parseNode({
      metadata: {
        name: "n",
        annotations: {
          "projectcalico.org/IPv4Address": "10.0.5.1/16",
          "projectcalico.org/IPv6Address": "fd00::5/128",
        },
      },
    });
    expect(kube.subnets, "a host prefix says nothing of the subnet").to.deep.equal(["10.0.5.1/16"]);
    expect(kube.addresses).to.deep.equal(["10.0.5.1", "fd00::5"]);
  });

  it("takes only addresses from a Node's address list: a hostname of hex digits and dots is none", () => {
    const node = parseNode({
      metadata: { name: "ab.cd" },
      status: {
        addresses: [
          { type: "Hostname", address: "ab.cd" },
          { type: "Hostname", address: "dead:beef" },
          { type: "InternalIP", address: "172.31.250.11" },
          { type: "InternalIP", address: "fd00:172:31:250::11" },
          { type: "InternalIP", address: "10.0.0.300" },
        ],
      },
    });
    expect(node.addresses).to.deep.equal(["172.31.250.11", "fd00:172:31:250::11"]);
  });

  it("tells the template's backend from Kubespray's probes and env", () => {
    expect(
      templateBackend(fixture("kubespray-2.18", "kubectl-get-daemonset-calico-node.json")),
    ).to.equal("bird");
    expect(
      templateBackend(fixture("kubespray-2.19", "kubectl-get-daemonset-calico-node.json")),
    ).to.equal("vxlan");
    expect(templateBackend(undefined)).to.equal(null);
  });

  it("reads the rollout status: every pod the lab kubelet ran is ready", () => {
    const r = parseRollout(fixture("kubespray-2.18", "kubectl-get-daemonset-calico-node.json"));
    expect(r).to.deep.equal({
      templateBackend: "bird",
      desired: 3,
      updated: 3,
      ready: 3,
      observed: true,
      maxUnavailable: "20%",
    });
  });

  it("reads maxUnavailable only when the DaemonSet rolls, and the one a migration kept in its annotation", () => {
    const ds = (strategy: object, annotations: Record<string, string> = {}): Json => ({
      kind: "DaemonSet",
      metadata: { generation: 1, annotations },
      spec: { updateStrategy: strategy },
      status: { observedGeneration: 1 },
    });
    expect(parseRollout(ds({ type: "OnDelete" })).maxUnavailable).to.equal(undefined);
    expect(parseRollout(ds({ type: "RollingUpdate" })).maxUnavailable).to.equal(null);
    expect(
      parseRollout(ds({ type: "RollingUpdate", rollingUpdate: { maxUnavailable: 2 } }))
        .maxUnavailable,
    ).to.equal(2);
    const held = (text: string) =>
      parseRollout(ds({}, { "calico-encap-migrate/max-unavailable": text })).heldMaxUnavailable;
    expect(held('"20%"')).to.equal("20%");
    expect(held("null")).to.equal(null);
    expect(held("{oops"), "unreadable: as if absent").to.equal(undefined);
  });
});
