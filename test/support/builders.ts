// Test builders: a live cluster and an inventory, with Kubespray's defaults taken from schemas/.

import optionsSchema from "../../schemas/calico_pool_check.options.json" with { type: "json" };
import migrateSchema from "../../schemas/calico_encap_migrate.options.json" with { type: "json" };
import type { Live, Pool } from "../../src/calico/shared/model.js";
import type { WriteContext } from "../../src/cluster/write.js";
import type { CalicoPoolCheckParams } from "../../src/modules/calico_pool_check.js";
import type { PairSummary, ProberSummary } from "../lab/prober/types.js";
import type { ProberFigures } from "./lab.js";

export function schemaDefaults(): CalicoPoolCheckParams {
  const props = optionsSchema.properties as Record<string, { default?: unknown }>;
  return Object.fromEntries(
    Object.entries(props).map(([k, v]) => [k, v.default]),
  ) as unknown as CalicoPoolCheckParams;
}

export function inventory(overrides: Partial<CalicoPoolCheckParams> = {}): CalicoPoolCheckParams {
  return { ...schemaDefaults(), ...overrides };
}

/**
 * What the migration's writes are made with, from calico_encap_migrate's defaults in schemas/ (Kubespray's
 * calicoctl.sh, kubectl and admin.conf, VXLAN VNI 4096 and port 4789), through calicoctl unless `overrides` say.
 */
export function writeContext(overrides: Partial<WriteContext> = {}): WriteContext {
  const defaults = migrateSchema.properties as Record<string, { default?: unknown }>;
  const of = <T>(option: string): T => defaults[option]?.default as T;
  return {
    client: "calicoctl",
    calicoctlPath: of("calicoctl_path"),
    kubectlPath: of("kubectl_path"),
    kubeconfig: of("kubeconfig"),
    vxlanVni: of("vxlan_vni"),
    vxlanPort: of("vxlan_port"),
    ...overrides,
  };
}

/** A pool as calicoctl prints it for a Kubespray 2.18 cluster. */
export function pool(overrides: Partial<Pool> = {}): Pool {
  return {
    name: "default-pool",
    cidr: "10.233.64.0/18",
    ipVersion: 4,
    blockSize: 24,
    ipipMode: "Always",
    vxlanMode: "Never",
    natOutgoing: true,
    disabled: false,
    nodeSelector: "all()",
    allowedUses: ["Workload", "Tunnel"],
    ...overrides,
  };
}

/** The cluster Kubespray 2.18 left: IPIP Always, backend bird, Felix ipipEnabled explicit. */
export function live218(overrides: Partial<Live> = {}): Live {
  return {
    calicoInstalled: true,
    reason: "read with calicoctl",
    client: "calicoctl",
    calicoVersion: "v3.32.1",
    pools: [pool()],
    // As Kubespray v2.18.2's role writes it: both flags explicit (test/lab/README.md, the kubespray-2.18 profile).
    felixDefault: { ipipEnabled: true, vxlanEnabled: false },
    felixNodes: {},
    configMapBackend: "bird",
    configMapEtcdEndpoints: null,
    nodeEnv: { backendFromConfigMap: true, datastoreType: "kubernetes" },
    ...overrides,
  };
}

/** Kubespray 2.18's variables, which keep a 2.18 cluster as it is. */
export const PINNED_218: Partial<CalicoPoolCheckParams> = {
  ipip_mode: "Always",
  vxlan_mode: "Never",
  network_backend: "bird",
  pool_blocksize: 24,
};

/**
 * A prober report with these totals (12 IPv4 pairs at 1200 probes a second), for the loss bounds' unit tests. The
 * longest outage is the gap where probes were lost, 0 where none was, unless given.
 */
export function proberFigures(
  lost: number,
  first: string | null,
  last: string | null,
  gap: number,
  sent = 20000,
  outage = lost > 0 ? gap : 0,
): ProberFigures {
  const totals = {
    pair_count: 12,
    sent,
    lost,
    longest_gap_ms: gap,
    longest_outage_ms: outage,
    first_lost_at: first,
    last_lost_at: last,
    rate_pps: 1200,
  };
  return {
    ...totals,
    agents: 3,
    pairs: [],
    families: { ipv4: totals },
    rcvbuf_errors: 0,
    rcvbuf_bytes: 8388608,
    summaries: [],
  };
}

/** One prober agent's summary with these pairs (and any field of `extra`), for the prober report's unit tests. */
export function proberSummary(
  node: string,
  family: "ipv4" | "ipv6",
  pairs: PairSummary[] = [],
  extra: Partial<ProberSummary> = {},
): ProberSummary {
  return {
    node,
    address: "x",
    family,
    pid: 1,
    epoch: 1,
    bound: true,
    stopped: false,
    started_at: "",
    reset_at: "",
    written_at: "",
    elapsed_s: 1,
    interval_ms: 10,
    timeout_ms: 1000,
    echoed: 0,
    ...extra,
    pairs,
  };
}
