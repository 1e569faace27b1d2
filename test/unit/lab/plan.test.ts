import { expect } from "chai";
import { meshSpec, withoutRoute } from "../../lab/dataplane/mesh.js";
import type { ObservedNode } from "../../lab/dataplane/plan.js";
import { parseObserved, planNode, splitJsonLines, validateSpec } from "../../lab/dataplane/plan.js";
import type { NodeDataplane } from "../../lab/dataplane/spec.js";

const VX = { vni: 4096, port: 4789 };
const EMPTY: ObservedNode = { loAddresses: [], vxlan: null, neighbours: [], fdb: [], routes: [] };

function node(kind: "vxlan" | "bgp", i = 1): NodeDataplane {
  const n = meshSpec({ kind, nodes: 3 }).nodes[i - 1];
  if (!n) throw new Error("no node");
  return n;
}

/** What node-1 of a healthy 3-node VXLAN mesh looks like once programmed. */
function programmedVxlan(): ObservedNode {
  return {
    loAddresses: ["10.233.64.5/32"],
    vxlan: {
      vni: 4096,
      port: 4789,
      dev: "eth0",
      learning: false,
      mac: "66:4c:61:62:04:01",
      up: true,
      addresses: ["10.233.64.0/32"],
    },
    neighbours: [
      { dst: "10.233.65.0", lladdr: "66:4c:61:62:04:02", permanent: true },
      { dst: "10.233.66.0", lladdr: "66:4c:61:62:04:03", permanent: true },
    ],
    fdb: [
      { mac: "66:4c:61:62:04:02", dst: "172.31.250.12" },
      { mac: "66:4c:61:62:04:03", dst: "172.31.250.13" },
    ],
    routes: [
      {
        dst: "10.233.65.0/24",
        gateway: "10.233.65.0",
        dev: "vxlan.calico",
        prefsrc: "10.233.64.0",
        protocol: 80,
        onlink: true,
      },
      {
        dst: "10.233.66.0/24",
        gateway: "10.233.66.0",
        dev: "vxlan.calico",
        prefsrc: "10.233.64.0",
        protocol: 80,
        onlink: true,
      },
      {
        dst: "172.31.250.0/24",
        gateway: null,
        dev: "eth0",
        prefsrc: "172.31.250.11",
        protocol: 2,
        onlink: false,
      },
    ],
  };
}

describe("lab data plane plan", () => {
  it("programs an empty namespace for VXLAN: device, addresses, neighbours, FDB, onlink routes", () => {
    const p = planNode(node("vxlan"), VX, EMPTY);
    expect(p.ip).to.deep.equal([
      "address add 10.233.64.5/32 dev lo",
      "link add vxlan.calico address 66:4c:61:62:04:01 type vxlan id 4096 dstport 4789 dev eth0 nolearning",
      "address add 10.233.64.0/32 dev vxlan.calico",
      "link set dev vxlan.calico up",
      "neigh replace 10.233.65.0 lladdr 66:4c:61:62:04:02 dev vxlan.calico nud permanent",
      "neigh replace 10.233.66.0 lladdr 66:4c:61:62:04:03 dev vxlan.calico nud permanent",
      "route replace 10.233.65.0/24 via 10.233.65.0 dev vxlan.calico onlink src 10.233.64.0 proto 80",
      "route replace 10.233.66.0/24 via 10.233.66.0 dev vxlan.calico onlink src 10.233.64.0 proto 80",
    ]);
    expect(p.bridge).to.deep.equal([
      "fdb append 66:4c:61:62:04:02 dev vxlan.calico dst 172.31.250.12 self permanent",
      "fdb append 66:4c:61:62:04:03 dev vxlan.calico dst 172.31.250.13 self permanent",
    ]);
  });

  it("does nothing when the namespace already matches (idempotent)", () => {
    expect(planNode(node("vxlan"), VX, programmedVxlan())).to.deep.equal({ ip: [], bridge: [] });
  });

  it("removes a route, its neighbour and FDB entry when the spec drops them", () => {
    const spec = withoutRoute(meshSpec({ kind: "vxlan", nodes: 3 }), "node-1", "node-3");
    const n = spec.nodes[0] as NodeDataplane;
    const p = planNode(n, VX, programmedVxlan());
    expect(p.ip).to.deep.equal([
      "neigh del 10.233.66.0 dev vxlan.calico",
      "route del 10.233.66.0/24 proto 80",
    ]);
    expect(p.bridge).to.deep.equal([
      "fdb del 66:4c:61:62:04:03 dev vxlan.calico dst 172.31.250.13 self",
    ]);
  });

  it("deletes vxlan.calico when the spec has no VXLAN device, and programs BGP routes with a pod source", () => {
    const p = planNode(node("bgp"), VX, programmedVxlan());
    expect(p.ip).to.deep.equal([
      "link del vxlan.calico",
      "route replace 10.233.65.0/24 via 172.31.250.12 dev eth0 src 10.233.64.5 proto 81",
      "route replace 10.233.66.0/24 via 172.31.250.13 dev eth0 src 10.233.64.5 proto 81",
    ]);
    expect(p.bridge).to.deep.equal([]);
  });

  it("recreates vxlan.calico with another VNI and programs its routes again", () => {
    const p = planNode(node("vxlan"), { vni: 4097, port: 4789 }, programmedVxlan());
    expect(p.ip[0]).to.equal("link del vxlan.calico");
    expect(p.ip[1]).to.match(/^link add vxlan.calico .* id 4097 /);
    expect(p.ip.filter((l) => l.startsWith("route replace"))).to.have.length(2);
    expect(p.ip.filter((l) => l.startsWith("route del"))).to.have.length(0);
    expect(p.bridge).to.have.length(2);
  });

  it("changes the MAC in place and replaces a changed route", () => {
    const obs = programmedVxlan();
    if (obs.vxlan) obs.vxlan.mac = "66:4c:61:62:04:99";
    const r = obs.routes[0];
    if (r) r.prefsrc = "10.233.64.7";
    expect(planNode(node("vxlan"), VX, obs).ip).to.deep.equal([
      "link set dev vxlan.calico address 66:4c:61:62:04:01",
      "route replace 10.233.65.0/24 via 10.233.65.0 dev vxlan.calico onlink src 10.233.64.0 proto 80",
    ]);
  });

  it("never touches routes with other protocols, and removes extra pod addresses", () => {
    const obs: ObservedNode = {
      ...EMPTY,
      loAddresses: ["10.233.64.5/32", "10.233.64.9/32"],
      routes: [
        {
          dst: "10.9.0.0/16",
          gateway: "172.31.250.1",
          dev: "eth0",
          prefsrc: null,
          protocol: 4,
          onlink: false,
        },
        {
          dst: "10.233.99.0/24",
          gateway: "172.31.250.19",
          dev: "eth0",
          prefsrc: "10.233.64.5",
          protocol: 81,
          onlink: false,
        },
        {
          dst: "10.233.98.0/24",
          gateway: "172.31.250.18",
          dev: "eth0",
          prefsrc: "10.233.64.9",
          protocol: 81,
          onlink: false,
        },
      ],
    };
    expect(planNode(node("bgp"), VX, obs).ip).to.deep.equal([
      "address del 10.233.64.9/32 dev lo",
      // 10.233.98.0/24 used the deleted address as source: the kernel drops it with the address.
      "route del 10.233.99.0/24 proto 81",
      "route replace 10.233.65.0/24 via 172.31.250.12 dev eth0 src 10.233.64.5 proto 81",
      "route replace 10.233.66.0/24 via 172.31.250.13 dev eth0 src 10.233.64.5 proto 81",
    ]);
  });

  it("rejects a VXLAN route on a node without a VXLAN device, and duplicate routes", () => {
    const spec = meshSpec({ kind: "vxlan", nodes: 2 });
    const n0 = spec.nodes[0] as NodeDataplane;
    expect(() => validateSpec({ ...spec, nodes: [{ ...n0, vxlanDevice: null }] })).to.throw(
      /node-1 has a vxlan route to 10.233.65.0\/24 but no vxlanDevice/,
    );
    expect(() =>
      validateSpec({ ...spec, nodes: [{ ...n0, routes: [...n0.routes, ...n0.routes] }] }),
    ).to.throw(/two routes/);
  });

  it("parses ip -json and bridge -json output as the kernel prints it", () => {
    const [addr, neigh, route] = splitJsonLines(
      [
        JSON.stringify([
          {
            ifname: "lo",
            flags: ["LOOPBACK", "UP"],
            addr_info: [
              { family: "inet", local: "127.0.0.1", prefixlen: 8 },
              { family: "inet", local: "10.233.64.5", prefixlen: 32 },
              { family: "inet6", local: "::1", prefixlen: 128 },
            ],
          },
          {
            ifname: "vxlan.calico",
            flags: ["BROADCAST", "UP", "LOWER_UP"],
            address: "66:4C:61:62:04:01",
            linkinfo: {
              info_kind: "vxlan",
              info_data: { id: 4096, link: "eth0", port: 4789, learning: false },
            },
            addr_info: [{ family: "inet", local: "10.233.64.0", prefixlen: 32 }],
          },
        ]),
        JSON.stringify([
          {
            dst: "10.233.65.0",
            dev: "vxlan.calico",
            lladdr: "66:4c:61:62:04:02",
            state: ["PERMANENT"],
          },
          { dst: "172.31.250.12", dev: "eth0", lladdr: "aa:bb:cc:dd:ee:ff", state: ["REACHABLE"] },
        ]),
        JSON.stringify([
          {
            dst: "10.233.65.0/24",
            gateway: "10.233.65.0",
            dev: "vxlan.calico",
            protocol: "80",
            prefsrc: "10.233.64.0",
            flags: ["onlink"],
          },
          { dst: "172.31.250.0/24", dev: "eth0", protocol: "kernel", flags: [] },
        ]),
        "",
      ].join("\n"),
    );
    const obs = parseObserved(addr, neigh, route, [
      {
        mac: "66:4c:61:62:04:02",
        ifname: "vxlan.calico",
        dst: "172.31.250.12",
        state: "permanent",
      },
      { mac: "33:33:00:00:00:01", ifname: "eth0", flags: ["self"], state: "permanent" },
    ]);
    expect(obs.loAddresses).to.deep.equal(["10.233.64.5/32"]);
    expect(obs.vxlan).to.deep.equal({
      vni: 4096,
      port: 4789,
      dev: "eth0",
      learning: false,
      mac: "66:4c:61:62:04:01",
      up: true,
      addresses: ["10.233.64.0/32"],
    });
    expect(obs.neighbours).to.deep.equal([
      { dst: "10.233.65.0", lladdr: "66:4c:61:62:04:02", permanent: true },
    ]);
    expect(obs.fdb).to.deep.equal([{ mac: "66:4c:61:62:04:02", dst: "172.31.250.12" }]);
    expect(obs.routes.map((r) => [r.dst, r.protocol, r.onlink])).to.deep.equal([
      ["10.233.65.0/24", 80, true],
      ["172.31.250.0/24", 2, false],
    ]);
  });
});
