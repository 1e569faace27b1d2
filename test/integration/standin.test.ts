// The calico-node stand-in against the real lab (kube-apiserver, kube-controller-manager rolling the calico-node
// DaemonSet, calicoctl): the 2022 upgrade must break the cluster, Kubespray's documented four steps must not.
// Its own LAB_STATE and ports, so it runs beside other labs; no data plane (LAB_DATAPLANE=0).

import { expect } from "chai";
import { execa } from "execa";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Status } from "../lab/standin/core.js";
import { REPO } from "../support/ansible.js";

const LAB_SH = join(REPO, "test", "lab", "lab.sh");
const STATE = process.env.STANDIN_TEST_STATE ?? "/tmp/standin-lab/lab";
const ENV = {
  LAB_STATE: STATE,
  LAB_ETCD_PORT: "27790",
  LAB_ETCD_PEER_PORT: "27791",
  LAB_APISERVER_PORT: "27792",
  LAB_KCM_PORT: "27793",
  LAB_SCHEDULER_PORT: "27794",
  LAB_DATAPLANE: "0",
};
const NODES = 3;
const BIN = join(STATE, "usr", "local", "bin");
const KUBECONFIG = join(STATE, "etc", "kubernetes", "admin.conf");

async function lab(...args: string[]): Promise<void> {
  await execa("bash", [LAB_SH, ...args], {
    env: { ...ENV, NODES: String(NODES) },
    stdio: "inherit",
  });
}

async function kubectl(...args: string[]): Promise<string> {
  return (await execa(join(BIN, "kubectl"), ["--kubeconfig", KUBECONFIG, ...args])).stdout;
}

async function calicoctl(...args: string[]): Promise<string> {
  return (await execa(join(BIN, "calicoctl.sh"), args)).stdout;
}

function status(): Status {
  return JSON.parse(readFileSync(join(STATE, "standin", "status.json"), "utf8")) as Status;
}

async function waitFor(
  what: string,
  secs: number,
  ok: () => boolean | Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + secs * 1000;
  for (;;) {
    try {
      if (await ok()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) {
      const s = existsSync(join(STATE, "standin", "status.json"))
        ? JSON.stringify(status().summary)
        : "none";
      throw new Error(`timed out after ${secs}s waiting for ${what} (stand-in summary: ${s})`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function annotations(): Promise<Record<string, Record<string, string>>> {
  const nodes = JSON.parse(await kubectl("get", "nodes", "-o", "json")) as {
    items: { metadata: { name: string; annotations?: Record<string, string> } }[];
  };
  return Object.fromEntries(
    nodes.items.map((n) => [n.metadata.name, n.metadata.annotations ?? {}]),
  );
}

async function podsReady(): Promise<number> {
  const pods = JSON.parse(
    await kubectl("-n", "kube-system", "get", "pods", "-l", "k8s-app=calico-node", "-o", "json"),
  ) as {
    items: {
      metadata: { deletionTimestamp?: string };
      status?: { conditions?: { type: string; status: string }[] };
    }[];
  };
  return pods.items.filter(
    (p) =>
      !p.metadata.deletionTimestamp &&
      p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
  ).length;
}

const IPIP = "projectcalico.org/IPv4IPIPTunnelAddr";
const VXLAN = "projectcalico.org/IPv4VXLANTunnelAddr";

async function healthy218(): Promise<void> {
  await lab("down");
  await lab("up", "kubespray-2.18");
  await waitFor("all calico-node pods Ready", 60, async () => (await podsReady()) === NODES);
  const ann = await annotations();
  for (const n of Object.values(ann)) expect(n[IPIP]).to.match(/^10\.233\./);
  const s = status();
  expect(s.summary).to.deep.include({
    podsReady: NODES,
    birdRunning: NODES,
    ipipTunnelAddrs: NODES,
  });
}

describe("the calico-node stand-in on the lab", function () {
  this.timeout(300000);
  after(() => lab("down"));

  it("the 2022 upgrade (calico-config -> vxlan, calico-node rolled, pool still IPIP): no BIRD, no VXLAN address", async () => {
    await healthy218();
    // What Kubespray 2.19 did to an existing 2.18 cluster (reference/kubespray-calico.md, "The 2022 break"): the
    // backend in calico-config, and the DaemonSet's template (felix-only probes, FELIX_VXLANVNI/PORT env), which
    // rolls calico-node. The pool is left alone.
    await kubectl(
      "-n",
      "kube-system",
      "patch",
      "configmap",
      "calico-config",
      "--type",
      "merge",
      "-p",
      JSON.stringify({ data: { calico_backend: "vxlan", cluster_type: "kubespray" } }),
    );
    const c = "/spec/template/spec/containers/0";
    await kubectl(
      "-n",
      "kube-system",
      "patch",
      "daemonset",
      "calico-node",
      "--type",
      "json",
      "-p",
      JSON.stringify([
        {
          op: "replace",
          path: `${c}/readinessProbe/exec/command`,
          value: ["/bin/calico-node", "-felix-ready"],
        },
        {
          op: "replace",
          path: `${c}/livenessProbe/exec/command`,
          value: ["/bin/calico-node", "-felix-live"],
        },
        { op: "add", path: `${c}/env/-`, value: { name: "FELIX_VXLANVNI", value: "4096" } },
        { op: "add", path: `${c}/env/-`, value: { name: "FELIX_VXLANPORT", value: "4789" } },
      ]),
    );
    await kubectl(
      "-n",
      "kube-system",
      "rollout",
      "status",
      "daemonset/calico-node",
      "--timeout",
      "120s",
    );
    await waitFor("every node restarted with backend vxlan and Ready", 60, async () => {
      const s = status();
      return (
        Object.values(s.nodes).every((n) => n.backend === "vxlan" && n.podReady) &&
        (await podsReady()) === NODES
      );
    });
    await new Promise((r) => setTimeout(r, 3000)); // give allocate-tunnel-addrs and Felix every chance
    const s = status();
    expect(s.summary).to.deep.include({
      pods: NODES,
      podsReady: NODES,
      birdRunning: 0,
      vxlanTunnelAddrs: 0,
      vxlanDevices: 0,
    });
    for (const n of Object.values(s.nodes)) expect(n.routes).to.deep.equal({ vxlan: 0, bgp: 0 });
    for (const a of Object.values(await annotations())) expect(a[VXLAN]).to.equal(undefined);
    const dp = JSON.parse(readFileSync(join(STATE, "dataplane", "desired.json"), "utf8")) as {
      nodes: { vxlanDevice: unknown; routes: unknown[] }[];
    };
    expect(dp.nodes.flatMap((n) => n.routes)).to.deep.equal([]);
  });

  it("Kubespray's documented four steps: every node ends with a VXLAN address and vxlan.calico", async () => {
    await healthy218();
    await calicoctl("patch", "felixconfig", "default", "-p", '{"spec":{"vxlanEnabled":true}}'); // 1
    await calicoctl(
      "patch",
      "ippool",
      "default-pool",
      "-p",
      '{"spec":{"ipipMode":"Never","vxlanMode":"Always"}}',
    ); // 2
    await waitFor("VXLAN tunnel addresses on every node and vxlan.calico", 60, async () => {
      const ann = await annotations(); // 3
      return (
        Object.values(ann).every((a) => a[VXLAN] !== undefined) &&
        Object.values(status().nodes).every((n) => n.vxlanDevice)
      );
    });
    await calicoctl("patch", "felixconfig", "default", "-p", '{"spec":{"ipipEnabled":false}}'); // 4
    await waitFor("Felix IPIP off everywhere, pods Ready", 60, async () => {
      const s = status();
      return (
        Object.values(s.nodes).every((n) => n.felixIpip === false && n.podReady) &&
        (await podsReady()) === NODES
      );
    });
    const s = status();
    expect(s.summary).to.deep.include({
      podsReady: NODES,
      vxlanTunnelAddrs: NODES,
      vxlanDevices: NODES,
      ipipTunnelAddrs: 0,
    });
    for (const [name, n] of Object.entries(s.nodes)) {
      expect(n.vxlanTunnelAddr, name).to.match(/^10\.233\./);
      expect(n.vxlanDevice, name).to.equal(true);
      expect(n.routes, name).to.deep.equal({ vxlan: NODES - 1, bgp: 0 });
    }
    const ann = await annotations();
    for (const a of Object.values(ann)) {
      expect(a[IPIP]).to.equal(undefined);
      expect(a["projectcalico.org/VXLANTunnelMACAddr"]).to.match(/^66:/);
    }
  });
});
