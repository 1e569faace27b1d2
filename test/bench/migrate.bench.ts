// npm run bench:migrate: calico_encap_migrate from IPIP/bird to VXLAN/vxlan on the lab at 3 nodes (the real
// calico-node, data plane on) and 100 and 1000 nodes (data plane off: a control-plane-only simulation by the
// stand-in, which handles any count). Measures the migration's wall time
// against the convergence time (from the last write until every node converged), the datastore calls per
// poll, and the memory of the lab and the stand-in. It measures; it never fails on time.

import { execa } from "execa";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { REPO } from "../support/ansible.js";
import { LAB_SH, readLabEnv, nodesStatus, waitUntil } from "../support/lab.js";

const COUNTS = (process.env.BENCH_NODES ?? "3,100,1000").split(",").map(Number);
const LAB_ENV = {
  LAB_STATE: join(mkdtempSync(join(tmpdir(), "calico-encap-bench-")), "lab"),
  LAB_ETCD_PORT: "29790",
  LAB_ETCD_PEER_PORT: "29791",
  LAB_APISERVER_PORT: "29792",
  LAB_KCM_PORT: "29793",
  LAB_SCHEDULER_PORT: "29794",
  LAB_BRIDGE: "cebench0",
  LAB_NETNS_PREFIX: "ceb-",
  LAB_UNDERLAY: "172.31.254",
  // A pool large enough for 1000 nodes' blocks (the 2.18 /18 with /24 blocks has 64).
  POOL_CIDR: "10.128.0.0/12",
  POOL_BLOCKSIZE: "26",
};

async function sh(args: string[], env: Record<string, string>): Promise<string> {
  const r = await execa(args[0] ?? "bash", args.slice(1), { env: { ...LAB_ENV, ...env } });
  return r.stdout;
}

async function benchNodes(n: number): Promise<string> {
  const dataplane = n <= 3 ? "1" : "0";
  await sh(["bash", LAB_SH, "down"], {}).catch(() => "");
  await sh(["bash", LAB_SH, "up", "kubespray-2.18"], {
    NODES: String(Math.min(n, 200)),
    LAB_DATAPLANE: dataplane,
  });
  process.env.LAB_STATE = LAB_ENV.LAB_STATE;
  const lab = readLabEnv(LAB_ENV.LAB_STATE);
  if (n > 200)
    await sh(
      ["node", join(REPO, "dist/test/lab/standin/add-nodes.js"), "201", String(n), "ipip"],
      {},
    );
  const t0 = performance.now();
  await waitUntil(
    `${n} calico-node pods ready with IPIP addresses`,
    () => {
      const s = nodesStatus(lab).summary;
      return s.podsReady === n && s.ipipTunnelAddrs === n;
    },
    900000,
  );
  const readyS = (performance.now() - t0) / 1000;
  const status = JSON.parse(await sh(["bash", LAB_SH, "status"], {})) as {
    rss_kib_total: number;
    standin?: { rss_kib?: number };
  };
  const args = join(LAB_ENV.LAB_STATE, "migrate-args.json");
  writeFileSync(
    args,
    JSON.stringify({
      calicoctl_path: lab.calicoctlSh,
      kubectl_path: lab.kubectl,
      kubeconfig: lab.kubeconfig,
      ipip_mode: "Never",
      vxlan_mode: "Always",
      network_backend: "vxlan",
      wait_sleep: 1,
      wait_timeout: 900,
      _ansible_verbosity: 3,
    }),
  );
  const m0 = performance.now();
  const r = await execa(
    "node",
    [join(REPO, "dist/src/cli.js"), "module", "calico_encap_migrate", args],
    { reject: false },
  );
  const wallS = (performance.now() - m0) / 1000;
  const result = JSON.parse(r.stdout) as {
    failed?: boolean;
    msg: string;
    steps: { title: string; seconds: number }[];
  };
  if (result.failed) throw new Error(`migration failed at ${n} nodes: ${result.msg}`);
  const calls = [...r.stderr.matchAll(/observed (\d+) nodes with (\d+) datastore calls/g)].map(
    (m) => Number(m[2]),
  );
  const last = result.steps.at(-1)?.seconds ?? NaN;
  const converging = result.steps.reduce((a, s) => a + s.seconds, 0);
  const nodes = nodesStatus(lab);
  const standinMiB = "standin" in nodes ? nodes.standin?.rssMiB : undefined;
  const row =
    `${String(n).padStart(4)} nodes: pods ready after ${readyS.toFixed(1)} s; migration ${wallS.toFixed(1)} s wall, ` +
    `${converging.toFixed(1)} s from each write to convergence (${((converging / wallS) * 100).toFixed(0)} % of wall), ` +
    `last write -> converged ${last.toFixed(1)} s; datastore calls per poll ${Math.min(...calls)}-${Math.max(...calls)} over ${calls.length} polls; ` +
    `lab RSS ${(status.rss_kib_total / 1024).toFixed(0)} MiB, stand-in ${standinMiB ?? "?"} MiB`;
  await sh(["bash", LAB_SH, "down"], {});
  return row;
}

const rows: string[] = [];
for (const n of COUNTS) {
  const row = await benchNodes(n);
  console.log(row);
  rows.push(row);
}
