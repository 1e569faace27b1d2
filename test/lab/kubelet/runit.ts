// What runs inside a calico-node container, decided from its environment the way calico-node's image decides it
// (pure). Facts: the image's /etc/rc.local and /etc/service/available/*/run in projectcalico/calico
// node/filesystem at v3.31.0 (../../../shared/reference/real-calico-node.md):
//   1. `calico-node -startup` (exits 1 on failure: the container fails);
//   2. NODENAME from /var/lib/calico/nodename, which startup wrote;
//   3. `calico-node -allocate-tunnel-addrs -allocate-tunnel-addrs-run-once`;
//   4. runit services: felix (FELIX_FELIXHOSTNAME=$NODENAME, FELIX_DATASTORETYPE=$DATASTORE_TYPE,
//      FELIX_ETCDENDPOINTS=$ETCD_ENDPOINTS), allocate-tunnel-addrs, and for any backend other than none and vxlan:
//      confd, bird (`bird -R -s /var/run/calico/bird.ctl -d -c /etc/calico/confd/config/bird.cfg`) and bird6
//      (`bird6 -R -s /var/run/calico/bird6.ctl -d -c /etc/calico/confd/config/bird6.cfg`): rc.local enables bird6
//      with bird whatever the node's addresses; confd renders bird6.cfg from bird6.cfg.template (conf.d/bird6.toml,
//      checked with `bird6 -p -c`, reloaded with `sv hup bird6`), with peers only when nodes have IPv6 addresses.
// Services the lab leaves out, and why, are listed in `notRun`.

export interface Command {
  name: string;
  argv: string[];
  /** Extra environment on top of the container's. */
  env: Record<string, string>;
}

export interface Service extends Command {
  /** runit's run script for bird waits for its config: the service starts once this file exists. */
  waitForFile?: string;
}

export interface RunPlan {
  backend: string;
  init: Command[];
  services: Service[];
  notRun: { name: string; why: string }[];
}

export const NODENAME_FILE = "/var/lib/calico/nodename";
export const BIRD_CFG = "/etc/calico/confd/config/bird.cfg";
export const BIRD_CTL = "/var/run/calico/bird.ctl";
export const BIRD6_CFG = "/etc/calico/confd/config/bird6.cfg";
export const BIRD6_CTL = "/var/run/calico/bird6.ctl";

/** rc.local: the legacy CALICO_NETWORKING maps onto CALICO_NETWORKING_BACKEND. */
export function backendOf(env: Readonly<Record<string, string>>): string {
  const legacy = env.CALICO_NETWORKING;
  if (legacy !== undefined && legacy !== "") return legacy === "false" ? "none" : "bird";
  return env.CALICO_NETWORKING_BACKEND ?? "bird";
}

export function runPlan(env: Readonly<Record<string, string>>, nodename: string): RunPlan {
  const backend = backendOf(env);
  const felixEnv: Record<string, string> = { FELIX_FELIXHOSTNAME: nodename };
  if (env.DATASTORE_TYPE) felixEnv.FELIX_DATASTORETYPE = env.DATASTORE_TYPE;
  if (env.ETCD_ENDPOINTS !== undefined) felixEnv.FELIX_ETCDENDPOINTS = env.ETCD_ENDPOINTS;
  const withNodename = { NODENAME: nodename };
  const services: Service[] = [];
  if (!env.CALICO_DISABLE_FELIX) {
    services.push({
      name: "felix",
      argv: ["calico-node", "-felix"],
      env: { ...withNodename, ...felixEnv },
    });
  }
  services.push({
    name: "allocate-tunnel-addrs",
    argv: ["calico-node", "-allocate-tunnel-addrs"],
    env: withNodename,
  });
  const notRun: RunPlan["notRun"] = [
    {
      name: "node-status-reporter",
      why: "writes CalicoNodeStatus only when one is requested",
    },
    { name: "cni", why: "refreshes the CNI plugin's token; the lab's CNI uses a fixed kubeconfig" },
  ];
  if (backend !== "none") {
    notRun.push({
      name: "monitor-addresses",
      why: "the lab's node addresses never change",
    });
  }
  if (backend !== "none" && backend !== "vxlan") {
    services.push({ name: "confd", argv: ["calico-node", "-confd"], env: withNodename });
    services.push({
      name: "bird",
      argv: ["bird", "-R", "-s", BIRD_CTL, "-d", "-c", BIRD_CFG],
      env: withNodename,
      waitForFile: BIRD_CFG,
    });
    services.push({
      name: "bird6",
      argv: ["bird6", "-R", "-s", BIRD6_CTL, "-d", "-c", BIRD6_CFG],
      env: withNodename,
      waitForFile: BIRD6_CFG,
    });
  }
  return {
    backend,
    init: [
      { name: "startup", argv: ["calico-node", "-startup"], env: {} },
      {
        name: "allocate-tunnel-addrs-once",
        argv: ["calico-node", "-allocate-tunnel-addrs", "-allocate-tunnel-addrs-run-once"],
        env: withNodename,
      },
    ],
    services,
    notRun,
  };
}

/**
 * What the lab adds to every calico-node process, and why. Nothing here changes a decision Calico makes:
 * - FELIX_DebugSkipCTLBCleanup (read with this exact case by felix/bpf/nat/connecttime.go, not through Felix's
 *   config): Felix's BPF clean-up at start needs libbpf, which a CGO_ENABLED=0 build replaces by a stub that panics
 *   ("LIBBPF syscall stub"); Calico's own FV tests set it (felix/fv/infrastructure/topology.go);
 * - FELIX_LOGSEVERITYSYS / FELIX_LOGFILEPATH: no syslog and no /var/log/calico/felix in the lab, logs go to stdout;
 * - KUBECONFIG: the lab has no service-account token mount; the kubeconfig reaches the apiserver through the
 *   node's relay.
 */
export function labEnv(kubeconfig: string | undefined): Record<string, string> {
  return {
    FELIX_DebugSkipCTLBCleanup: "true",
    FELIX_LOGSEVERITYSYS: "none",
    FELIX_LOGFILEPATH: "none",
    ...(kubeconfig ? { KUBECONFIG: kubeconfig } : {}),
  };
}
