// The lab's kubelet: for each data-plane node (a network namespace), it runs that node's calico-node pod with the
// real calico-node binary (Felix, allocate-tunnel-addrs, confd and BIRD for bird) as kubelet and the image's runit
// would, reports the pod's status from the template's own probes, rolls with the DaemonSet (a terminating pod is
// stopped and its deletion finalised; the new pod starts), and networks the prober's pods with the real Calico CNI
// plugin. It writes <LAB_STATE>/kubelet/status.json (what runs where) and <LAB_STATE>/kubelet/pods.json (the
// prober's pods: node, netns, pod IP, host IP).
//
//   node dist/test/lab/kubelet/main.js      (lab.sh up starts it; lab.sh down stops it)
//
// Environment: LAB_STATE (default <repo>/.lab; its env file gives the apiserver, token, datastore, LAB_BIN),
// LAB_NETNS_PREFIX (calab-), LAB_DATAPLANE_NODES (3), LAB_PROBE_PERIOD_MAX_S (2: probes run at the template's
// period or this, whichever is shorter), LAB_CALICO_MODULE_DIR (Calico's module, for confd's templates).

import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cycleLog, log, readEnvFile } from "../lab-env.js";
import { promisify } from "node:util";
import { Api, ApiError } from "../standin/apiserver.js";
import { writeAtomic } from "../standin/dataplane.js";
import { cniAdd, cniDel, conflist, type PodRef } from "./cni.js";
import { installBin, installCniBin, installConfd } from "./node-files.js";
import { type Container, resolveEnv } from "./pod-env.js";
import { PodRun } from "./pod-run.js";
import { labEnv } from "./runit.js";
import { type PodView, podStatus, statusChanged } from "./pod-status.js";
import { Sandbox } from "./sandbox.js";
import type { KubeletStatus, NodeStatus, ProbePod } from "./status.js";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
const NAMESPACE = "kube-system";
const PROBE_NAMESPACE = "default";
const PROBE_LABEL = "calico-encap.lab/prober";
const execFileP = promisify(execFile);

interface K8sPod {
  metadata: {
    name: string;
    namespace?: string;
    uid: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
  };
  spec: { nodeName?: string; containers: Container[] };
  status?: Record<string, unknown>;
}
interface K8sNode {
  metadata: { name: string; annotations?: Record<string, string> };
  status?: { addresses?: { type: string; address: string }[] };
}
interface ConfigMap {
  metadata: { name: string };
  data?: Record<string, string>;
}

interface Faults {
  stuckTunnels?: string[];
}

interface ProbePodRun {
  uid: string;
  ref: PodRef;
  ips: string[];
  error: string | null;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const labState = resolve(process.env.LAB_STATE ?? join(REPO, ".lab"));
  const env = readEnvFile(join(labState, "env"));
  // What this lab wrote in its own env file comes first: a shell that sourced another lab's env exports that lab's
  // apiserver URL and admin token, and the apiserver would answer 401 to every request.
  const need = (k: string): string => {
    const v = env[k] ?? process.env[k];
    if (!v) throw new Error(`${k} is not set (${labState}/env or the environment)`);
    return v;
  };
  const url = need("LAB_APISERVER_URL");
  const token = need("LAB_ADMIN_TOKEN");
  const labBin = need("LAB_BIN");
  const datastore = (process.env.LAB_CALICO_DATASTORE ?? env.LAB_CALICO_DATASTORE ?? "kdd") as
    "kdd" | "etcd";
  const calicoModule = need("LAB_CALICO_MODULE_DIR");
  const prefix = process.env.LAB_NETNS_PREFIX ?? env.LAB_NETNS_PREFIX ?? "calab-";
  const dpNodes = Number(process.env.LAB_DATAPLANE_NODES ?? env.LAB_DATAPLANE_NODES ?? "3");
  const maxProbePeriodMs = Number(process.env.LAB_PROBE_PERIOD_MAX_S ?? "2") * 1000;
  const containerStop = (): "kill" | "term" => {
    const f = join(labState, "pod-stop");
    const word = existsSync(f) ? readFileSync(f, "utf8").trim() : process.env.LAB_POD_STOP;
    return word === "term" ? "term" : "kill";
  };
  const ca = readFileSync(join(labState, "pki", "apiserver", "apiserver.crt"), "utf8");
  const api = new Api({ url, token, ca, maxSockets: 16 });
  const outDir = join(labState, "kubelet");
  mkdirSync(outDir, { recursive: true });
  const cniBin = join(labState, "opt", "cni", "bin");
  installCniBin(cniBin, labBin);

  // One sandbox per data-plane node, made once: the node's host view survives pod restarts (hostPath).
  const sandboxes = new Map<string, Sandbox>();
  const kubeconfigs = new Map<string, string>();
  for (let i = 1; i <= dpNodes; i++) {
    const node = `node-${i}`;
    const netns = `${prefix}${node}`;
    if (!Sandbox.exists(netns)) continue;
    const root = join(labState, "nodes", node);
    const binDir = join(root, "bin");
    installBin(binDir, labBin);
    installConfd(calicoModule, join(root, "etc", "calico"));
    const kubeconfig = join(root, "etc", "cni", "net.d", "calico-kubeconfig");
    mkdirSync(dirname(kubeconfig), { recursive: true });
    writeFileSync(kubeconfig, readFileSync(join(labState, "etc", "kubernetes", "admin.conf")), {
      mode: 0o600,
    });
    kubeconfigs.set(node, kubeconfig);
    // Every node has a default route; Calico's pods reach their gateway 169.254.1.1 by proxy ARP on the cali*
    // interface, which the kernel answers only with a route for it. Without a gateway nothing leaves the underlay.
    // (Only here: on a stand-in lab, whose pod addresses sit on the nodes' lo, a default route would carry probes
    // past a missing route by ARP.)
    await execFileP("ip", ["-n", netns, "route", "replace", "default", "dev", "eth0"]);
    sandboxes.set(node, await Sandbox.start(node, netns, root, binDir));
  }
  log(
    `kubelet for ${[...sandboxes.keys()].join(", ")}: apiserver ${url}, datastore ${datastore}, ` +
      `probe period at most ${maxProbePeriodMs} ms`,
  );

  let stopping = false;
  for (const sig of ["SIGTERM", "SIGINT"] as const) process.on(sig, () => (stopping = true));

  const runs = new Map<string, PodRun>(); // node -> calico-node pod run
  const starting = new Set<string>();
  const reported = new Map<string, string>(); // pod uid -> JSON of the last PodView written
  const probeRuns = new Map<string, ProbePodRun>(); // pod uid -> networked pod
  const cniBusy = new Set<string>();
  let lastStatus = "";
  let lastDataplaneRead = 0;
  let dataplane = new Map<
    string,
    { vxlanDevice: boolean; routes: { vxlan: number; bgp: number } }
  >();
  const cycle = cycleLog();

  const podPath = (ns: string, name: string): string => `/api/v1/namespaces/${ns}/pods/${name}`;
  const finalize = async (p: K8sPod): Promise<void> => {
    try {
      await api.call("DELETE", podPath(p.metadata.namespace ?? NAMESPACE, p.metadata.name), {
        kind: "DeleteOptions",
        apiVersion: "v1",
        gracePeriodSeconds: 0,
        preconditions: { uid: p.metadata.uid },
      });
    } catch (e) {
      if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) throw e;
    }
  };

  while (!stopping) {
    const t0 = Date.now();
    try {
      const [pods, probePods, nodes, cms] = await Promise.all([
        api.list<K8sPod>(
          `/api/v1/namespaces/${NAMESPACE}/pods?labelSelector=k8s-app%3Dcalico-node`,
        ),
        api.list<K8sPod>(
          `/api/v1/namespaces/${PROBE_NAMESPACE}/pods?labelSelector=${encodeURIComponent(PROBE_LABEL)}`,
        ),
        api.list<K8sNode>("/api/v1/nodes"),
        api.list<ConfigMap>(`/api/v1/namespaces/${NAMESPACE}/configmaps`),
      ]);
      const configMaps = new Map(cms.map((c) => [c.metadata.name, c.data ?? {}]));
      const nodeIp = new Map(
        nodes.map((n) => [
          n.metadata.name,
          n.status?.addresses?.find((a) => a.type === "InternalIP")?.address ?? null,
        ]),
      );
      const faults = readFaults(labState);

      // -- calico-node pods
      for (const [node, sandbox] of sandboxes) {
        const mine = pods.filter((p) => p.spec.nodeName === node);
        const live = mine.find((p) => !p.metadata.deletionTimestamp);
        const run = runs.get(node);
        if (run && run.uid !== live?.metadata.uid) {
          log(
            `${node}: calico-node ${run.name} stops (pod ${live ? "replaced" : "gone or terminating"})`,
          );
          runs.delete(node);
          await run.stop();
        }
        for (const p of mine.filter((x) => x.metadata.deletionTimestamp)) await finalize(p);
        if (!live || runs.has(node) || starting.has(node)) continue;
        const container =
          live.spec.containers.find((c) => c.name === "calico-node") ?? live.spec.containers[0];
        if (!container) continue;
        const hostIP = nodeIp.get(node) ?? null;
        const resolved = resolveEnv(container, {
          configMaps,
          fields: {
            "spec.nodeName": node,
            "metadata.name": live.metadata.name,
            "metadata.namespace": NAMESPACE,
            ...(hostIP ? { "status.hostIP": hostIP, "status.podIP": hostIP } : {}),
          },
        });
        if (resolved.errors.length > 0) {
          await report(api, live, reported, {
            phase: "Pending",
            ready: false,
            waiting: { reason: "CreateContainerConfigError", message: resolved.errors.join("; ") },
            restartCount: 0,
            startedAt: new Date().toISOString(),
            hostIP,
            podIPs: hostIP ? [hostIP] : [],
            containerName: container.name,
            image: container.image ?? "",
            containerID: "",
          });
          continue;
        }
        const podEnv = {
          ...resolved.env,
          ...labEnv(kubeconfigs.get(node)),
        };
        const newRun = new PodRun(
          sandbox,
          live.metadata.uid,
          live.metadata.name,
          container,
          podEnv,
          {
            maxProbePeriodMs,
            containerStop,
            suppressed: new Set(
              faults.stuckTunnels?.includes(node) ? ["allocate-tunnel-addrs"] : [],
            ),
            log,
          },
        );
        runs.set(node, newRun);
        log(
          `${node}: calico-node ${live.metadata.name} starts (backend ${podEnv.CALICO_NETWORKING_BACKEND ?? "?"})`,
        );
        starting.add(node);
        void newRun.start().finally(() => starting.delete(node));
      }

      // -- probes and pod status
      for (const [node, run] of runs) {
        void run.tick(Date.now());
        run.setStuck(faults.stuckTunnels?.includes(node) ?? false);
        const pod = pods.find((p) => p.metadata.uid === run.uid);
        if (!pod || pod.metadata.deletionTimestamp) continue;
        const hostIP = nodeIp.get(node) ?? null;
        await report(api, pod, reported, {
          phase: run.phase === "init" ? "Pending" : "Running",
          ready: run.ready,
          waiting:
            run.phase === "crashed"
              ? { reason: "CrashLoopBackOff", message: run.lastInitError ?? "" }
              : run.phase === "init"
                ? { reason: "PodInitializing", message: "" }
                : null,
          restartCount: run.restartCount,
          startedAt: new Date(run.startedAt).toISOString(),
          hostIP,
          podIPs: hostIP ? [hostIP] : [],
          containerName: run.container.name,
          image: run.container.image ?? "",
          containerID: `lab://${run.uid}`,
        });
      }

      // -- the prober's pods, networked by the Calico CNI plugin once calico-node runs on their node
      const pools = await poolCidrs(api, datastore, env);
      for (const p of probePods) {
        const node = p.spec.nodeName;
        const sandbox = node ? sandboxes.get(node) : undefined;
        if (!node || !sandbox || cniBusy.has(p.metadata.uid)) continue;
        const have = probeRuns.get(p.metadata.uid);
        const list = conflist({
          datastore,
          nodename: node,
          poolCidr: pools.v4,
          pool6Cidr: pools.v6,
          kubeconfig: kubeconfigs.get(node) ?? "",
          etcdEndpoints: env.LAB_ETCD_URL ?? null,
        });
        if (p.metadata.deletionTimestamp) {
          cniBusy.add(p.metadata.uid);
          void (async () => {
            try {
              if (have) await cniDel(sandbox, cniBin, have.ref, list);
              await execFileP("ip", ["netns", "del", netnsOfPod(prefix, p.metadata.name)]).catch(
                () => undefined,
              );
              probeRuns.delete(p.metadata.uid);
              await finalize(p);
            } catch (e) {
              log(`${node}: ${(e as Error).message}`);
            } finally {
              cniBusy.delete(p.metadata.uid);
            }
          })();
          continue;
        }
        if (have && have.ips.length > 0) {
          await report(api, p, reported, probePodView(p, have, nodeIp.get(node) ?? null));
          continue;
        }
        if (runs.get(node)?.phase !== "running") continue;
        cniBusy.add(p.metadata.uid);
        void (async () => {
          const netns = netnsOfPod(prefix, p.metadata.name);
          const ref: PodRef = {
            namespace: PROBE_NAMESPACE,
            name: p.metadata.name,
            uid: p.metadata.uid,
            containerId: `lab${p.metadata.uid.replace(/-/g, "")}`,
            netnsPath: `/run/netns/${netns}`,
          };
          try {
            if (!Sandbox.exists(netns)) await execFileP("ip", ["netns", "add", netns]);
            await execFileP("ip", ["-n", netns, "link", "set", "lo", "up"]);
            // A dual-stack pod's sandbox has IPv6 on (a container runtime leaves it on; the Calico CNI plugin
            // turns it on again for an IPv6 address, and turns DAD off on the pod's eth0).
            if (pools.v6)
              await execFileP("ip", [
                "netns",
                "exec",
                netns,
                "sysctl",
                "-qw",
                "net.ipv6.conf.all.disable_ipv6=0",
                "net.ipv6.conf.default.disable_ipv6=0",
              ]);
            const r = await cniAdd(sandbox, cniBin, ref, list);
            probeRuns.set(p.metadata.uid, { uid: p.metadata.uid, ref, ips: r.ips, error: null });
            log(
              `${node}: pod ${p.metadata.name} networked by the Calico CNI plugin: ${r.ips.join(", ")}`,
            );
          } catch (e) {
            log(`${node}: ${(e as Error).message}`);
            probeRuns.set(p.metadata.uid, {
              uid: p.metadata.uid,
              ref,
              ips: [],
              error: (e as Error).message,
            });
          } finally {
            cniBusy.delete(p.metadata.uid);
          }
        })();
      }

      // -- what the nodes' kernels hold (every second)
      if (Date.now() - lastDataplaneRead > 1000) {
        dataplane = await readDataplane(sandboxes);
        lastDataplaneRead = Date.now();
      }
      const status = buildStatus(
        sandboxes,
        runs,
        nodes,
        dataplane,
        probePods,
        probeRuns,
        prefix,
        nodeIp,
      );
      const text = JSON.stringify(status);
      if (text !== lastStatus) {
        writeAtomic(join(outDir, "status.json"), JSON.stringify(status, null, 1) + "\n");
        writeAtomic(join(outDir, "pods.json"), JSON.stringify(status.probePods, null, 1) + "\n");
        lastStatus = text;
      }
      cycle.ok();
    } catch (e) {
      // The apiserver refusing the lab's own token never heals: say so and stop, so lab.sh up fails at once.
      if (e instanceof ApiError && e.code === 401) {
        log(
          `error: the apiserver at ${url} answered 401 Unauthorized to the token from ${labState}/env; ` +
            "expected the admin token this lab wrote; start the lab from a shell without another lab's env",
        );
        process.exitCode = 1;
        break;
      }
      cycle.failed(e);
    }
    await sleep(Math.max(200, 500 - (Date.now() - t0)));
  }
  log("stopping: every calico-node process");
  await Promise.all([...runs.values()].map((r) => r.stop()));
  for (const s of sandboxes.values()) s.stop();
  api.close();
  log("stopped");
}

function netnsOfPod(prefix: string, pod: string): string {
  return `${prefix}pod-${pod}`;
}

function readFaults(labState: string): Faults {
  for (const f of [
    join(labState, "kubelet", "faults.json"),
    join(labState, "standin", "faults.json"),
  ]) {
    if (!existsSync(f)) continue;
    try {
      return JSON.parse(readFileSync(f, "utf8")) as Faults;
    } catch {
      return {};
    }
  }
  return {};
}

let poolCidrsCache: { v4: string; v6: string | null } | null = null;
/**
 * The pools Kubespray's CNI config names (calico_pool_cidr, and calico_pool_cidr_ipv6 on a dual-stack cluster): the
 * lab's IPv4 pool and its IPv6 pool (none on IPv4-only profiles), read once.
 */
async function poolCidrs(
  api: Api,
  datastore: string,
  env: Record<string, string>,
): Promise<{ v4: string; v6: string | null }> {
  if (poolCidrsCache) return poolCidrsCache;
  let v4 = env.LAB_POOL_CIDR;
  let v6: string | null = null;
  if (datastore === "kdd") {
    const pools = await api.list<{ metadata: { name: string }; spec?: { cidr?: string } }>(
      "/apis/crd.projectcalico.org/v1/ippools",
    );
    // Kubespray's pools only: calico_pool_name and calico_pool_name-ipv6, never a tunnel pool made later.
    const cidrs = pools
      .filter((p) => !p.metadata.name.endsWith("-vxlan-tunnel"))
      .map((p) => p.spec?.cidr ?? "");
    v4 ??= cidrs.find((c) => c.includes("."));
    v6 = cidrs.find((c) => c.includes(":")) ?? null;
  }
  return (poolCidrsCache = { v4: v4 ?? "10.233.64.0/18", v6 });
}

function probePodView(p: K8sPod, r: ProbePodRun, hostIP: string | null): PodView {
  const c = p.spec.containers[0];
  return {
    phase: "Running",
    ready: true,
    waiting: null,
    restartCount: 0,
    startedAt: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    hostIP,
    podIPs: r.ips,
    containerName: c?.name ?? "prober",
    image: c?.image ?? "",
    containerID: `lab://${p.metadata.uid}`,
  };
}

async function report(
  api: Api,
  pod: K8sPod,
  reported: Map<string, string>,
  want: PodView,
): Promise<void> {
  const key = JSON.stringify({ ...want, startedAt: "" });
  const cur = pod.status as Parameters<typeof statusChanged>[0];
  if (reported.get(pod.metadata.uid) === key && !statusChanged(cur, want)) return;
  if (!statusChanged(cur, want)) {
    reported.set(pod.metadata.uid, key);
    return;
  }
  try {
    await api.mergePatch(
      `${`/api/v1/namespaces/${pod.metadata.namespace ?? NAMESPACE}/pods/${pod.metadata.name}`}/status`,
      {
        metadata: { uid: pod.metadata.uid },
        status: podStatus(want, new Date().toISOString().replace(/\.\d+Z$/, "Z")),
      },
    );
    reported.set(pod.metadata.uid, key);
  } catch (e) {
    if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) throw e;
  }
}

async function readDataplane(
  sandboxes: Map<string, Sandbox>,
): Promise<Map<string, { vxlanDevice: boolean; routes: { vxlan: number; bgp: number } }>> {
  const out = new Map<string, { vxlanDevice: boolean; routes: { vxlan: number; bgp: number } }>();
  await Promise.all(
    [...sandboxes.entries()].map(async ([node, s]) => {
      try {
        const [links, routes] = await Promise.all([
          execFileP("ip", ["-n", s.netns, "-j", "link", "show"]),
          execFileP("ip", ["-n", s.netns, "-j", "route", "show", "table", "main"]),
        ]);
        const l = JSON.parse(links.stdout) as { ifname: string }[];
        const r = JSON.parse(routes.stdout) as { dev?: string; protocol?: string; type?: string }[];
        out.set(node, {
          vxlanDevice: l.some((x) => x.ifname === "vxlan.calico"),
          routes: {
            vxlan: r.filter((x) => x.dev === "vxlan.calico").length,
            bgp: r.filter((x) => x.protocol === "bird").length,
          },
        });
      } catch {
        out.set(node, { vxlanDevice: false, routes: { vxlan: 0, bgp: 0 } });
      }
    }),
  );
  return out;
}

const ANN = {
  ipip: "projectcalico.org/IPv4IPIPTunnelAddr",
  vxlan: "projectcalico.org/IPv4VXLANTunnelAddr",
  vxlanMac: "projectcalico.org/VXLANTunnelMACAddr",
  vxlan6: "projectcalico.org/IPv6VXLANTunnelAddr",
};

function buildStatus(
  sandboxes: Map<string, Sandbox>,
  runs: Map<string, PodRun>,
  nodes: K8sNode[],
  dataplane: Map<string, { vxlanDevice: boolean; routes: { vxlan: number; bgp: number } }>,
  probePods: K8sPod[],
  probeRuns: Map<string, ProbePodRun>,
  prefix: string,
  nodeIp: Map<string, string | null>,
): KubeletStatus {
  const nodeIp6 = new Map(
    nodes.map((n) => [
      n.metadata.name,
      n.status?.addresses?.find((a) => a.type === "InternalIP" && a.address.includes(":"))
        ?.address ?? null,
    ]),
  );
  const status: KubeletStatus = {
    kind: "lab-kubelet",
    summary: {
      nodes: sandboxes.size,
      pods: 0,
      podsReady: 0,
      birdRunning: 0,
      vxlanDevices: 0,
      ipipTunnelAddrs: 0,
      vxlanTunnelAddrs: 0,
    },
    nodes: {},
    probePods: [],
    warnings: [],
  };
  for (const [node] of sandboxes) {
    const run = runs.get(node);
    const ann = nodes.find((n) => n.metadata.name === node)?.metadata.annotations ?? {};
    const svc = run?.serviceStates() ?? [];
    const felix = svc.find((s) => s.name === "felix");
    const bird = svc.find((s) => s.name === "bird");
    const dp = dataplane.get(node) ?? { vxlanDevice: false, routes: { vxlan: 0, bgp: 0 } };
    const ns: NodeStatus = {
      pod: run?.name ?? null,
      podPhase: run?.phase ?? null,
      podReady: run?.ready ?? false,
      backend: run?.plan?.backend ?? null,
      restartCount: run?.restartCount ?? 0,
      services: svc,
      birdRunning: bird?.running ?? false,
      felixRunning: felix?.running ?? false,
      felixRestarts: Math.max(0, (felix?.starts ?? 0) - 1),
      readiness: run ? { ok: run.readiness.ok, output: run.readiness.lastOutput } : null,
      ipipTunnelAddr: ann[ANN.ipip] ?? null,
      vxlanTunnelAddr: ann[ANN.vxlan] ?? null,
      vxlanTunnelMac: ann[ANN.vxlanMac] ?? null,
      ipv6VxlanTunnelAddr: ann[ANN.vxlan6] ?? null,
      vxlanDevice: dp.vxlanDevice,
      routes: dp.routes,
    };
    status.nodes[node] = ns;
    if (run) status.summary.pods++;
    if (ns.podReady) status.summary.podsReady++;
    if (ns.birdRunning) status.summary.birdRunning++;
    if (ns.vxlanDevice) status.summary.vxlanDevices++;
    if (ns.ipipTunnelAddr) status.summary.ipipTunnelAddrs++;
    if (ns.vxlanTunnelAddr) status.summary.vxlanTunnelAddrs++;
  }
  for (const p of probePods) {
    const r = probeRuns.get(p.metadata.uid);
    const node = p.spec.nodeName ?? "";
    const pp: ProbePod = {
      name: p.metadata.name,
      node,
      netns: netnsOfPod(prefix, p.metadata.name),
      nodeNetns: `${prefix}${node}`,
      podIP: r?.ips.find((ip) => ip.includes(".")) ?? null,
      podIP6: r?.ips.find((ip) => ip.includes(":")) ?? null,
      hostIP: nodeIp.get(node) ?? null,
      hostIP6: nodeIp6.get(node) ?? null,
      error: r?.error ?? null,
    };
    status.probePods.push(pp);
  }
  return status;
}

main().catch((e: unknown) => {
  log(`fatal: ${(e as Error).stack ?? String(e)}`);
  process.exit(1);
});
