import { expect } from "chai";
import { conflist } from "../../lab/kubelet/cni.js";
import { stripKrtTunnel } from "../../lab/kubelet/node-files.js";
import { expand, resolveEnv, type Container } from "../../lab/kubelet/pod-env.js";
import { podStatus, statusChanged, type PodView } from "../../lab/kubelet/pod-status.js";
import { afterProbe, initialProbe, probeDue, probeSettings } from "../../lab/kubelet/probes.js";
import { backendOf, runPlan } from "../../lab/kubelet/runit.js";

describe("lab kubelet: a container's environment (pod-env)", () => {
  const cms = new Map([
    ["calico-config", { calico_backend: "bird", cluster_type: "kubespray,bgp" }],
  ]);
  const fields = { "spec.nodeName": "node-2", "status.hostIP": "172.31.250.12" };

  it("resolves value, configMapKeyRef and fieldRef, and expands $(VAR) from earlier variables", () => {
    const c: Container = {
      name: "calico-node",
      env: [
        {
          name: "CALICO_NETWORKING_BACKEND",
          valueFrom: { configMapKeyRef: { name: "calico-config", key: "calico_backend" } },
        },
        { name: "NODENAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
        { name: "NODEIP", valueFrom: { fieldRef: { fieldPath: "status.hostIP" } } },
        { name: "IP_AUTODETECTION_METHOD", value: "can-reach=$(NODEIP)" },
        { name: "LATER", value: "$(AFTER) $$(NODEIP)" },
        { name: "AFTER", value: "x" },
      ],
    };
    const r = resolveEnv(c, { configMaps: cms, fields });
    expect(r.errors).to.deep.equal([]);
    expect(r.env).to.include({
      CALICO_NETWORKING_BACKEND: "bird",
      NODENAME: "node-2",
      IP_AUTODETECTION_METHOD: "can-reach=172.31.250.12",
      LATER: "$(AFTER) $(NODEIP)",
    });
  });

  it("a missing key that is not optional keeps the container from starting, as kubelet does", () => {
    const c: Container = {
      name: "calico-node",
      env: [
        {
          name: "X",
          valueFrom: { configMapKeyRef: { name: "calico-config", key: "etcd_endpoints" } },
        },
      ],
    };
    const r = resolveEnv(c, { configMaps: cms, fields });
    expect(r.errors).to.deep.equal([
      "couldn't find key etcd_endpoints in ConfigMap kube-system/calico-config",
    ]);
    const opt: Container = {
      name: "c",
      env: [
        { name: "X", valueFrom: { configMapKeyRef: { name: "nope", key: "k", optional: true } } },
      ],
    };
    expect(resolveEnv(opt, { configMaps: cms, fields }).errors).to.deep.equal([]);
  });

  it("expand leaves unknown references as written", () => {
    expect(expand("$(A)-$(B)", { A: "1" })).to.equal("1-$(B)");
  });
});

describe("lab kubelet: what runs in calico-node (runit)", () => {
  it("bird runs confd and BIRD besides Felix and the allocator; vxlan and none do not", () => {
    const names = (backend: string): string[] =>
      runPlan({ CALICO_NETWORKING_BACKEND: backend }, "node-1").services.map((s) => s.name);
    expect(names("bird")).to.deep.equal([
      "felix",
      "allocate-tunnel-addrs",
      "confd",
      "bird",
      "bird6",
    ]);
    expect(names("vxlan")).to.deep.equal(["felix", "allocate-tunnel-addrs"]);
    expect(names("none")).to.deep.equal(["felix", "allocate-tunnel-addrs"]);
  });

  it("bird6 runs as the image's run script starts it, once confd has rendered bird6.cfg", () => {
    const plan = runPlan({ CALICO_NETWORKING_BACKEND: "bird" }, "node-2");
    const bird6 = plan.services.find((s) => s.name === "bird6");
    expect(bird6?.argv).to.deep.equal([
      "bird6",
      "-R",
      "-s",
      "/var/run/calico/bird6.ctl",
      "-d",
      "-c",
      "/etc/calico/confd/config/bird6.cfg",
    ]);
    expect(bird6?.waitForFile).to.equal("/etc/calico/confd/config/bird6.cfg");
    expect(plan.notRun.map((n) => n.name)).not.to.include("bird6");
  });

  it("Felix gets the node name and datastore as its run script exports them", () => {
    const felix = runPlan(
      { DATASTORE_TYPE: "kubernetes", CALICO_NETWORKING_BACKEND: "vxlan" },
      "node-3",
    ).services.find((s) => s.name === "felix");
    expect(felix?.env).to.deep.equal({
      NODENAME: "node-3",
      FELIX_FELIXHOSTNAME: "node-3",
      FELIX_DATASTORETYPE: "kubernetes",
    });
  });

  it("the init steps are startup, then the allocator once; the legacy CALICO_NETWORKING maps to a backend", () => {
    expect(runPlan({}, "n").init.map((c) => c.argv.join(" "))).to.deep.equal([
      "calico-node -startup",
      "calico-node -allocate-tunnel-addrs -allocate-tunnel-addrs-run-once",
    ]);
    expect(backendOf({ CALICO_NETWORKING: "false", CALICO_NETWORKING_BACKEND: "bird" })).to.equal(
      "none",
    );
    expect(backendOf({})).to.equal("bird");
  });
});

describe("lab kubelet: probes", () => {
  const s = probeSettings(
    {
      exec: { command: ["/bin/calico-node", "-felix-ready"] },
      periodSeconds: 10,
      failureThreshold: 3,
    },
    2000,
  );

  it("caps the period, keeps the thresholds", () => {
    expect(s.periodMs).to.equal(2000);
    expect(s.failureThreshold).to.equal(3);
  });

  it("readiness: true after one success, false only after failureThreshold failures in a row", () => {
    let st = initialProbe("readiness");
    expect(st.ok).to.equal(false);
    st = afterProbe(s, st, true, "", 0);
    expect(st.ok).to.equal(true);
    st = afterProbe(s, st, false, "", 1);
    st = afterProbe(s, st, false, "", 2);
    expect(st.ok).to.equal(true);
    st = afterProbe(s, st, false, "", 3);
    expect(st.ok).to.equal(false);
  });

  it("is due after its period, not before", () => {
    const st = afterProbe(s, initialProbe("liveness"), true, "", 1000);
    expect(probeDue(s, st, 0, 2500)).to.equal(false);
    expect(probeDue(s, st, 0, 3000)).to.equal(true);
    expect(probeDue(probeSettings(undefined, 2000), st, 0, 9999)).to.equal(false);
  });
});

describe("lab kubelet: pod status", () => {
  const want: PodView = {
    phase: "Running",
    ready: true,
    waiting: null,
    restartCount: 0,
    startedAt: "2026-01-01T00:00:00Z",
    hostIP: "172.31.250.11",
    podIPs: ["172.31.250.11"],
    containerName: "calico-node",
    image: "i",
    containerID: "lab://x",
  };
  it("is written only when what kubelet knows changed", () => {
    const cur = podStatus(want, "t") as Parameters<typeof statusChanged>[0];
    expect(statusChanged(cur, want)).to.equal(false);
    expect(statusChanged(cur, { ...want, ready: false })).to.equal(true);
    expect(statusChanged(cur, { ...want, restartCount: 1 })).to.equal(true);
    expect(statusChanged(undefined, want)).to.equal(true);
  });
});

describe("lab kubelet: BIRD config and CNI config", () => {
  it("stripKrtTunnel removes the krt_tunnel attribute and the CrossSubnet choice around it, nothing else", () => {
    const t = [
      "  if ( net ~ {{$data.cidr}} ) then {",
      '{{- else if $data.ipip_mode}}{{if eq $data.ipip_mode "cross-subnet"}}',
      "    if defined(bgp_next_hop) && ( bgp_next_hop ~ {{$network}} ) then",
      '      krt_tunnel = "";',
      "    else",
      '      krt_tunnel = "{{$data.ipip}}";',
      "    accept;",
      "  } {{- else}}",
      '    krt_tunnel = "{{$data.ipip}}";',
      "    accept;",
    ].join("\n");
    const out = stripKrtTunnel(t);
    expect(out).not.to.match(/krt_tunnel|bgp_next_hop|^\s*else\s*$/m);
    expect(out.split("\n")).to.have.length(5);
    expect(out).to.include("{{- else}}");
  });

  it("renders Kubespray's conflist: calico with calico-ipam from the pool the inventory names", () => {
    const c = conflist({
      datastore: "kdd",
      nodename: "node-1",
      poolCidr: "10.233.64.0/18",
      pool6Cidr: null,
      kubeconfig: "/k",
      etcdEndpoints: null,
    });
    const calico = (c.plugins as Record<string, unknown>[])[0];
    expect(calico).to.deep.include({
      type: "calico",
      datastore_type: "kubernetes",
      nodename: "node-1",
      ipam: { type: "calico-ipam", assign_ipv4: "true", ipv4_pools: ["10.233.64.0/18"] },
    });
  });

  it("a dual-stack cluster's conflist assigns IPv6 from the IPv6 pool too (enable_dual_stack_networks)", () => {
    const c = conflist({
      datastore: "kdd",
      nodename: "node-2",
      poolCidr: "10.233.64.0/18",
      pool6Cidr: "fd85:ee78:d8a6:8607::1:0/112",
      kubeconfig: "/k",
      etcdEndpoints: null,
    });
    const calico = (c.plugins as Record<string, unknown>[])[0];
    expect(calico?.ipam).to.deep.equal({
      type: "calico-ipam",
      assign_ipv6: "true",
      ipv6_pools: ["fd85:ee78:d8a6:8607::1:0/112"],
      ipv4_pools: ["10.233.64.0/18"],
      assign_ipv4: "true",
    });
  });
});
