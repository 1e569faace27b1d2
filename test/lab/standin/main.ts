// The calico-node stand-in: one process for every node of the lab. Each cycle it LISTs each kind once (calico-node
// pods, Nodes, kube-system ConfigMaps, IPPools, FelixConfigurations, ClusterInformations), runs the pure core
// (core.ts), sends only the writes the core asks for (pod status, pod deletion, Node tunnel annotations), hands the
// data plane its spec when it changes, and writes <LAB_STATE>/standin/status.json.
//
//   node dist/test/lab/standin/main.js            (lab.sh up starts it; lab.sh down stops it)
//
// Environment: LAB_STATE (default <repo>/.lab; its env file gives LAB_APISERVER_URL and LAB_ADMIN_TOKEN unless set),
// LAB_STANDIN_INTERVAL_MS (300), LAB_DATAPLANE (1; 0 = only write <LAB_STATE>/dataplane/desired.json),
// LAB_DATAPLANE_NODES (3), LAB_NETNS_PREFIX (calab-), LAB_STANDIN_FELIX_START_MS (1000),
// LAB_STANDIN_BIRD_PEER_MS (1500), LAB_CALICO_DATASTORE (etcd: Calico objects are not read, see README).

import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cycleLog, log, readEnvFile } from "../lab-env.js";
import { Api, ApiError } from "./apiserver.js";
import type { Action, Options, State, Status } from "./core.js";
import { DEFAULT_OPTIONS, NAMESPACE, POD_LABEL, initialState, step } from "./core.js";
import { dataplaneAdapter, writeAtomic } from "./dataplane.js";
import type { Faults, Observed } from "./types.js";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

function num(name: string, dflt: number): number {
  const v = process.env[name];
  if (v === undefined || v === "") return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number >= 0, got '${v}'`);
  return n;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function actionRequest(a: Action): { method: "PATCH" | "DELETE"; path: string; body: unknown } {
  switch (a.kind) {
    case "podStatus":
      return {
        method: "PATCH",
        path: `/api/v1/namespaces/${a.namespace}/pods/${a.name}/status`,
        body: { metadata: { uid: a.uid }, status: a.status },
      };
    case "deletePod":
      return {
        method: "DELETE",
        path: `/api/v1/namespaces/${a.namespace}/pods/${a.name}`,
        body: {
          kind: "DeleteOptions",
          apiVersion: "v1",
          gracePeriodSeconds: 0,
          preconditions: { uid: a.uid },
        },
      };
    case "nodeAnnotations":
      // A merge patch naming only the tunnel annotations (null removes one): nothing else on the Node is touched.
      return {
        method: "PATCH",
        path: `/api/v1/nodes/${a.node}`,
        body: { metadata: { annotations: a.annotations } },
      };
  }
}

/** Faults a test injected in <LAB_STATE>/standin/faults.json ({"stuckTunnels": ["node-3"]}); none when absent. */
function readFaults(labState: string): Faults {
  const file = join(labState, "standin", "faults.json");
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Faults;
  } catch {
    return {};
  }
}

async function main(): Promise<void> {
  const labState = resolve(process.env.LAB_STATE ?? join(REPO, ".lab"));
  const fileEnv = readEnvFile(join(labState, "env"));
  const url = process.env.LAB_APISERVER_URL ?? fileEnv.LAB_APISERVER_URL;
  const token = process.env.LAB_ADMIN_TOKEN ?? fileEnv.LAB_ADMIN_TOKEN;
  if (!url || !token)
    throw new Error(`no LAB_APISERVER_URL/LAB_ADMIN_TOKEN (env or ${labState}/env)`);
  const ca = readFileSync(join(labState, "pki", "apiserver", "apiserver.crt"), "utf8");
  const datastore = process.env.LAB_CALICO_DATASTORE ?? fileEnv.LAB_CALICO_DATASTORE ?? "kdd";
  const interval = num("LAB_STANDIN_INTERVAL_MS", 300);
  const opt: Options = {
    ...DEFAULT_OPTIONS,
    felixStartMs: num("LAB_STANDIN_FELIX_START_MS", DEFAULT_OPTIONS.felixStartMs),
    birdPeerMs: num("LAB_STANDIN_BIRD_PEER_MS", DEFAULT_OPTIONS.birdPeerMs),
    dataplaneNodes: num("LAB_DATAPLANE_NODES", DEFAULT_OPTIONS.dataplaneNodes),
  };
  const statusDir = join(labState, "standin");
  mkdirSync(statusDir, { recursive: true });
  const api = new Api({ url, token, ca, maxSockets: 16 });
  const dp = await dataplaneAdapter(
    labState,
    (process.env.LAB_DATAPLANE ?? "1") !== "0",
    process.env.LAB_NETNS_PREFIX ?? "calab-",
    log,
  );
  log(
    `calico-node stand-in for ${labState}: apiserver ${url}, every ${interval} ms, datastore ${datastore}, ` +
      `Felix start ${opt.felixStartMs} ms, BIRD peering ${opt.birdPeerMs} ms, data plane ${opt.dataplaneNodes} nodes`,
  );

  let stopping = false;
  for (const sig of ["SIGTERM", "SIGINT"] as const) {
    process.on(sig, () => {
      stopping = true;
    });
  }

  let state: State = initialState();
  let cycles = 0;
  let lastDataplane = "";
  let lastStatus = "";
  let lastStatusWrite = 0;
  const cycle = cycleLog();
  const recent: number[] = [];
  let cpu = process.cpuUsage();
  let cpuAt = performance.now();
  let cpuPct = 0;
  const podsPath = `/api/v1/namespaces/${NAMESPACE}/pods?labelSelector=${encodeURIComponent(
    `${POD_LABEL.key}=${POD_LABEL.value}`,
  )}`;
  const calico = datastore !== "etcd";

  while (!stopping) {
    const t0 = performance.now();
    const req0 = api.requests;
    try {
      const [pods, nodes, configMaps, ipPools, felixConfigurations, clusterInformations] =
        await Promise.all([
          api.list<Observed["pods"][number]>(podsPath),
          api.list<Observed["nodes"][number]>("/api/v1/nodes"),
          api.list<Observed["configMaps"][number]>(`/api/v1/namespaces/${NAMESPACE}/configmaps`),
          calico
            ? api.list<Observed["ipPools"][number]>("/apis/crd.projectcalico.org/v1/ippools")
            : [],
          calico
            ? api.list<Observed["felixConfigurations"][number]>(
                "/apis/crd.projectcalico.org/v1/felixconfigurations",
              )
            : [],
          calico
            ? api.list<Observed["clusterInformations"][number]>(
                "/apis/crd.projectcalico.org/v1/clusterinformations",
              )
            : [],
        ]);
      const tList = performance.now();
      const r = step(
        state,
        {
          pods,
          nodes,
          configMaps,
          ipPools,
          felixConfigurations,
          clusterInformations,
          faults: readFaults(labState),
        },
        Date.now(),
        opt,
      );
      state = r.state;
      const tStep = performance.now();
      for (const l of r.logs) log(l);
      const results = await Promise.allSettled(
        r.actions.map((a) => {
          const q = actionRequest(a);
          return q.method === "PATCH"
            ? api.mergePatch(q.path, q.body)
            : api.call("DELETE", q.path, q.body);
        }),
      );
      results.forEach((res, i) => {
        if (res.status === "fulfilled") return;
        const e = res.reason as Error;
        // A pod gone or replaced meanwhile (404, 409 on the uid precondition) is settled by the next cycle.
        if (e instanceof ApiError && (e.code === 404 || e.code === 409)) return;
        log(`write failed (${r.actions[i]?.kind}): ${e.message}`);
      });
      const dpText = JSON.stringify(r.dataplane);
      if (dpText !== lastDataplane) {
        try {
          await dp.push(r.dataplane);
          lastDataplane = dpText;
          log(
            `data plane: ${r.dataplane.nodes.length} nodes, ${r.dataplane.nodes.filter((n) => n.vxlanDevice).length} ` +
              `vxlan.calico, ${r.dataplane.nodes.reduce((s, n) => s + n.routes.length, 0)} routes`,
          );
        } catch (e) {
          log(`data plane apply failed (retried next cycle): ${(e as Error).message}`);
        }
      }
      const warnings = calico
        ? r.status.warnings
        : [
            ...r.status.warnings,
            "etcd datastore: Calico objects are not read; only pods are played",
          ];
      const body: Status = { ...r.status, warnings };
      const statusText = JSON.stringify(body);
      const cycleMs = performance.now() - t0;
      recent.push(cycleMs);
      if (recent.length > 20) recent.shift();
      const now = Date.now();
      if (statusText !== lastStatus || now - lastStatusWrite > 5000) {
        const el = performance.now() - cpuAt;
        if (el > 1000) {
          const c = process.cpuUsage(cpu);
          cpuPct = ((c.user + c.system) / 1000 / el) * 100;
          cpu = process.cpuUsage();
          cpuAt = performance.now();
        }
        const meta = {
          pid: process.pid,
          updatedAt: new Date(now).toISOString(),
          cycles: cycles + 1,
          intervalMs: interval,
          cycleMs: Math.round(cycleMs),
          listMs: Math.round(tList - t0),
          stepMs: Math.round(tStep - tList),
          cycleMsAvg20: Math.round(recent.reduce((s, x) => s + x, 0) / recent.length),
          requestsLastCycle: api.requests - req0,
          cpuPercent: Math.round(cpuPct * 10) / 10,
          rssMiB: Math.round(process.memoryUsage().rss / 1048576),
          dataplane: dp.mode,
        };
        writeAtomic(
          join(statusDir, "status.json"),
          JSON.stringify({ standin: meta, ...body }, null, 1) + "\n",
        );
        lastStatus = statusText;
        lastStatusWrite = now;
      }
      cycle.ok();
    } catch (e) {
      cycle.failed(e);
    }
    cycles++;
    const elapsed = performance.now() - t0;
    // At most ~50% duty: a cycle that outgrows the interval (1000 nodes: LISTs of ~250 ms) waits as long as it took,
    // but never more than 2 s: a cycle held up by a stopped apiserver must not keep calico-node idle once it answers.
    await sleep(Math.min(Math.max(interval - elapsed, elapsed, 50), Math.max(interval, 2000)));
  }
  api.close();
  log("stopped");
}

main().catch((e: unknown) => {
  log(`fatal: ${(e as Error).stack ?? String(e)}`);
  process.exit(1);
});
