// Least privilege, held to the API server's own record (issue 39). The lab's real kube-apiserver writes its audit log
// (LAB_AUDIT=1, every request at Metadata level); the preflight and the migration run with ServiceAccount tokens
// bound to the collection's RBAC manifests (ansible/roles/calico_encap/files/rbac-*.yaml), with
// `datastore_client: kubectl` so that every read and write goes through the kubeconfig given (Kubespray's
// calicoctl.sh uses admin.conf whatever the task says). From the audit log alone: every request each identity made
// over the file is allowed by its role, and its role grants nothing it never used; the preflight only reads; each
// migration's writes (a run there and back, a rollback, a run killed as it writes and resumed) are its steps',
// object and verb, as many times as the steps say, and none else. What each kind of step writes is written here
// (REQUESTS_OF, THERE_AND_BACK), not taken from the product (src/cluster/permissions.ts), so that its mistake shows.
// LEAST_PRIVILEGE_DISCOVER=1 binds both identities to cluster-admin instead and prints what they asked for.

import { expect } from "chai";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { REPO, runTask, type TaskResult } from "../support/ansible.js";
import type { Step, Write } from "../../src/calico/plan/plan.js";
import {
  BASIC_USER,
  grantsOf,
  labAuditRequests,
  notAllowed,
  requestKey,
  unusedGrants,
  writes,
  type AuditRequest,
} from "../support/audit.js";
import { kubectl, labDown, labUp, nodesStatus, waitUntil, type Lab } from "../support/lab.js";
import { runAndKill, runPausing, type Timeline } from "../support/module-process.js";

const DISCOVER = process.env.LEAST_PRIVILEGE_DISCOVER === "1";
const RBAC = join(REPO, "ansible", "roles", "calico_encap", "files");
const IDENTITIES = {
  check: { sa: "calico-encap-check", file: join(RBAC, "rbac-check.yaml") },
  migrate: { sa: "calico-encap-migrate", file: join(RBAC, "rbac-migrate.yaml") },
} as const;
type Identity = keyof typeof IDENTITIES;
const userOf = (id: Identity): string => `system:serviceaccount:kube-system:${IDENTITIES[id].sa}`;

/**
 * The requests one step's write makes through kubectl, by its kind: Calico's FelixConfiguration default and IPPools
 * (crd.projectcalico.org, cluster-wide), and Kubespray's calico-config and calico-node DaemonSet in kube-system. The
 * backend's write patches both of Kubespray's objects; maxUnavailable (rollout) only the DaemonSet; a tunnel pool is
 * created, never deleted.
 */
const REQUESTS_OF: { [K in Write["kind"]]: (w: Extract<Write, { kind: K }>) => string[] } = {
  felix: () => ["patch crd.projectcalico.org/felixconfigurations -/default"],
  pool: (w) => [`patch crd.projectcalico.org/ippools -/${w.pool}`],
  tunnelPool: (w) => [`create crd.projectcalico.org/ippools -/${w.pool}`],
  backend: () => [
    "patch core/configmaps kube-system/calico-config",
    "patch apps/daemonsets kube-system/calico-node",
  ],
  rollout: () => ["patch apps/daemonsets kube-system/calico-node"],
};
const requestsOf = (w: Write): string[] => (REQUESTS_OF[w.kind] as (x: Write) => string[])(w);

/**
 * What a migration IPIP -> VXLAN with tunnel_pool_cidr and back with ipip_tunnel_pool_cidr must write on Kubespray
 * 2.18's cluster, each object and verb once: both tunnel pools created; FelixConfiguration default (the VXLAN and
 * IPIP flags, programClusterRoutes) and the pool's modes patched; calico-config's backend and the calico-node
 * DaemonSet (the backend's pod template, and maxUnavailable around the way back to bird) patched.
 */
const THERE_AND_BACK = [
  "create crd.projectcalico.org/ippools -/default-pool-ipip-tunnel",
  "create crd.projectcalico.org/ippools -/default-pool-vxlan-tunnel",
  "patch apps/daemonsets kube-system/calico-node",
  "patch core/configmaps kube-system/calico-config",
  "patch crd.projectcalico.org/felixconfigurations -/default",
  "patch crd.projectcalico.org/ippools -/default-pool",
];

/** Into VXLAN with its tunnel pool, and back into IPIP with its own: the migration there and back of THERE_AND_BACK. */
const VXLAN = { ipip_mode: "Never", vxlan_mode: "Always", network_backend: "vxlan" };
const IPIP = { ipip_mode: "Always", vxlan_mode: "Never", network_backend: "bird" };
const TO_VXLAN = { ...VXLAN, tunnel_pool_cidr: "172.30.0.0/24" };
const TO_IPIP = { ...IPIP, ipip_tunnel_pool_cidr: "172.30.1.0/24" };
/** A progress line of the pool switch's wait going forward: the pool is written and the run is polling. */
const POOL_WAIT = /calico-encap: step \d+\/\d+ 'Switch IPPool default-pool .*: .* \(\d+ s\)/;

/** How many times each key comes in `keys`, keys sorted. */
const tally = (keys: readonly string[]): Record<string, number> =>
  Object.fromEntries([...new Set(keys)].sort().map((k) => [k, keys.filter((x) => x === k).length]));

/** The requests the steps' writes make (REQUESTS_OF), one per command; a wait-only step makes none. */
const stepRequests = (steps: readonly { write?: Write | null }[]): string[] =>
  steps.flatMap((x) => (x.write ? requestsOf(x.write) : []));

const PINNED_218 = {
  ipip_mode: "Always",
  vxlan_mode: "Never",
  network_backend: "bird",
  pool_blocksize: 24,
};

/** A kubeconfig for the identity's ServiceAccount: the lab's admin.conf with a token the API server issued. */
async function kubeconfigOf(lab: Lab, id: Identity): Promise<string> {
  const token = (
    await kubectl(
      lab,
      "-n",
      "kube-system",
      "create",
      "token",
      IDENTITIES[id].sa,
      "--duration",
      "2h",
    )
  ).trim();
  const file = join(lab.state, `${IDENTITIES[id].sa}.conf`);
  writeFileSync(
    file,
    readFileSync(lab.kubeconfig, "utf8").replace(/^(\s+token:).*$/m, `$1 ${token}`),
    { mode: 0o600 },
  );
  return file;
}

function args(lab: Lab, kubeconfig: string): Record<string, unknown> {
  return {
    datastore_client: "kubectl",
    calicoctl_path: lab.calicoctlSh,
    kubectl_path: lab.kubectl,
    kubeconfig,
  };
}

const describeRequests = (rs: readonly AuditRequest[]): string[] => [
  ...new Set(rs.map((r) => `${requestKey(r)} ${r.code}`)),
];

describe("least privilege: the preflight and the migration under their own roles, held to the audit log", function () {
  this.timeout(1200000);
  let lab: Lab;
  const config: Partial<Record<Identity, string>> = {};

  before(async () => {
    lab = await labUp("kubespray-2.18", 3, undefined, { LAB_AUDIT: "1" });
    await waitUntil(
      "calico-node ready with BIRD",
      () => {
        const s = nodesStatus(lab).summary;
        return s.podsReady === 3 && s.birdRunning === 3;
      },
      120000,
    );
    for (const id of Object.keys(IDENTITIES) as Identity[]) {
      if (DISCOVER) {
        await kubectl(lab, "-n", "kube-system", "create", "serviceaccount", IDENTITIES[id].sa);
        await kubectl(
          lab,
          "create",
          "clusterrolebinding",
          `${IDENTITIES[id].sa}-discover`,
          "--clusterrole",
          "cluster-admin",
          "--serviceaccount",
          `kube-system:${IDENTITIES[id].sa}`,
        );
      } else await kubectl(lab, "apply", "-f", IDENTITIES[id].file);
      config[id] = await kubeconfigOf(lab, id);
    }
  });
  after(labDown);

  it("the preflight, blocked and passing, as calico-encap-check", async () => {
    const blocked: TaskResult = (
      await runTask({ calico_pool_check: args(lab, config.check ?? "") })
    ).result;
    expect(blocked.failed, blocked.msg).to.equal(true);
    expect(blocked.msg).to.include(
      "spec.ipipMode: cluster has Always, inventory (calico_ipip_mode) says Never",
    );
    const passing: TaskResult = (
      await runTask({ calico_pool_check: { ...args(lab, config.check ?? ""), ...PINNED_218 } })
    ).result;
    expect(passing.failed, passing.msg).to.not.equal(true);
    expect(passing.findings).to.deep.equal([]);
  });

  /** The write requests (the Lease's aside: see the last test) the migration's identity made since `since`. */
  const writesSince = (since: string): string[] =>
    writes(labAuditRequests(lab.state, userOf("migrate")))
      .filter((r) => r.at >= since && r.resource !== "leases")
      .map(requestKey);
  const migrateBase = (): Record<string, unknown> => ({
    ...args(lab, config.migrate ?? ""),
    wait_sleep: 1,
    wait_timeout: 180,
  });
  type Steps = { title: string; write: Write | null }[];

  it("a migration IPIP -> VXLAN with tunnel_pool_cidr and back with ipip_tunnel_pool_cidr, as calico-encap-migrate", async () => {
    const since = new Date().toISOString();
    const into: TaskResult = (
      await runTask({ calico_encap_migrate: { ...migrateBase(), ...TO_VXLAN } })
    ).result;
    expect(into.failed, into.msg).to.not.equal(true);
    expect(into.changed).to.equal(true);
    expect(into.warnings ?? [], "the API server answered every can-i").to.not.satisfy(
      (w: string[]) => w.some((x) => x.includes("kubectl auth can-i")),
    );
    // The way back without ipip_tunnel_pool_cidr keeps BIRD's path here, where migrate.yml's fallback applies: in
    // check mode with stop_before the module reads the IPAM block affinities (list blockaffinities, granted for the
    // fallback: issue 52 item 8) and names each node's fallback routes.
    const fallback: TaskResult = (
      await runTask({
        calico_encap_migrate: { ...migrateBase(), ...IPIP, stop_before: "pool_switch" },
        check_mode: true,
      })
    ).result;
    expect(fallback.failed, fallback.msg).to.not.equal(true);
    expect(fallback.msg).to.include(
      "fallback_routes: the routes the nodes' fallback tables would hold, each on every node but its peer",
    );
    const back: TaskResult = (
      await runTask({ calico_encap_migrate: { ...migrateBase(), ...TO_IPIP } })
    ).result;
    expect(back.failed, back.msg).to.not.equal(true);
    const written = writesSince(since);
    const steps = [...(into.steps as Steps), ...(back.steps as Steps)];
    console.log(
      `      ${written.length} writes by calico-encap-migrate, ${steps.length} steps, ${stepRequests(steps).length} requests by their writes`,
    );
    expect(
      tally(written),
      "every write request is a step's (object, verb), and each step's was made, as many times",
    ).to.deep.equal(tally(stepRequests(steps)));
    expect([...new Set(written)].sort(), "what a migration there and back writes").to.deep.equal(
      THERE_AND_BACK,
    );
  });

  it("with patch on the calico-node DaemonSet taken from its role, the migration refuses before its first write, naming it", async () => {
    const full = readFileSync(IDENTITIES.migrate.file, "utf8");
    const list = parse(full) as {
      items: { kind: string; rules?: { resources: string[]; verbs: string[] }[] }[];
    };
    const rule = list.items
      .filter((o) => o.kind === "Role")
      .flatMap((o) => o.rules ?? [])
      .find((r) => r.resources.includes("daemonsets") && r.verbs.includes("patch"));
    expect(rule, "the role file grants patch on calico-node").to.not.equal(undefined);
    rule!.verbs = rule!.verbs.filter((v) => v !== "patch");
    const cut = stringify(list);
    const file = join(lab.state, "rbac-migrate-cut.yaml");
    writeFileSync(file, cut);
    await kubectl(lab, "apply", "-f", file);
    try {
      const since = new Date().toISOString();
      const r: TaskResult = (
        await runTask({
          calico_encap_migrate: { ...args(lab, config.migrate ?? ""), wait_sleep: 1, ...TO_VXLAN },
        })
      ).result;
      expect(r.failed, r.msg).to.equal(true);
      expect(r.changed).to.equal(false);
      expect(r.msg).to.match(
        /^Refused before any write: the kubeconfig's identity \(.*\) may not patch daemonsets\.apps\/calico-node in kube-system, which this run needs/,
      );
      expect(r.steps).to.deep.equal([]);
      const after = labAuditRequests(lab.state, userOf("migrate")).filter((x) => x.at >= since);
      expect(after.length, "it asked").to.be.above(0);
      expect(describeRequests(writes(after)), "the audit log shows no write").to.deep.equal([]);
    } finally {
      await kubectl(lab, "apply", "-f", IDENTITIES.migrate.file);
    }
  });

  // waits.test's rollback on Felix's path, under the role: the API server stopped past wait_timeout in the pool
  // switch's wait, so the step does not settle and the run rolls back.
  it("a rollback after the pool switch into VXLAN did not settle within wait_timeout, as calico-encap-migrate", async () => {
    const since = new Date().toISOString();
    const { result: r, lines } = await runPausing(
      lab,
      { ...migrateBase(), ...TO_VXLAN, command_timeout: 3, wait_timeout: 25 },
      POOL_WAIT,
      31000,
    );
    const log = `${r.msg}\n${lines.join("\n")}`;
    expect(r.failed, log).to.equal(true);
    expect(r.rolled_back, log).to.equal(true);
    expect(r.msg).to.include("rolled back to the state before the first write and verified it");
    const steps = r.steps as Steps;
    expect(
      steps.filter((x) => x.write?.kind === "pool").map((x) => (x.write as { set: object }).set),
      "the pool switched, and switched back",
    ).to.deep.equal([
      { ipipMode: "Never", vxlanMode: "Always" },
      { ipipMode: "Always", vxlanMode: "Never" },
    ]);
    const written = writesSince(since);
    console.log(
      `      rollback: ${written.length} writes by calico-encap-migrate, ${steps.length} steps (${steps.map((x) => x.write?.kind ?? "wait").join(", ")})`,
    );
    expect(
      tally(written),
      "every write request is a step's (object, verb), the rollback's included, and each step's was made",
    ).to.deep.equal(tally(stepRequests(steps)));
  });

  // interrupt.test's kill, under the role: SIGKILLed as the pool switch's write goes out (which the API server may
  // or may not have received), then re-run through Ansible, which takes over the dead run's Lease and resumes.
  it("a run killed as its pool switch's write goes out, then resumed, as calico-encap-migrate", async () => {
    const into = { ...migrateBase(), ...TO_VXLAN };
    const since = new Date().toISOString();
    const planned = (await runTask({ calico_encap_migrate: into }, { args: ["--check"] })).result
      .plan as Step[];
    const pool = planned.find((x) => x.write?.kind === "pool");
    expect(pool, JSON.stringify(planned)).to.not.equal(undefined);
    const t: Timeline = { opened: [], written: [] };
    await runAndKill(into, pool!.title, "step", t);
    const resumed = (await runTask({ calico_encap_migrate: into })).result;
    expect(resumed.failed, resumed.msg).to.not.equal(true);
    expect(resumed.migrated_to).to.deep.include({ backend: "vxlan" });
    // The killed run's steps: those it opened, in the plan the check made of the same cluster.
    const opened = t.opened.map((o) => o.title);
    expect(
      opened.filter((x) => !planned.some((p) => p.title === x)),
      "every step the killed run opened is in the plan",
    ).to.deep.equal([]);
    const done = planned.filter((x) => opened.includes(x.title) && x !== pool);
    const steps = resumed.steps as Steps;
    const written = tally(writesSince(since));
    const landed = tally(stepRequests([...done, pool!, ...steps]));
    const lost = tally(stepRequests([...done, ...steps]));
    console.log(
      `      killed and resumed: the killed run opened ${opened.length} steps; its pool write ${JSON.stringify(written) === JSON.stringify(landed) ? "reached" : "did not reach"} the API server; the resumed run took ${steps.length} steps (${steps.map((x) => x.write?.kind ?? "wait").join(", ")}); ${Object.values(written).reduce((a, b) => a + b, 0)} writes`,
    );
    expect(
      [landed, lost],
      "every write request is a step's (object, verb), of the killed run (its last write made or not) or the resumed one, and each step's was made",
    ).to.deep.include(written);
  });

  it("the audit log over the file: each identity's requests are allowed by its role, which grants nothing unused; the preflight only reads", () => {
    for (const id of Object.keys(IDENTITIES) as Identity[]) {
      const requests = labAuditRequests(lab.state, userOf(id));
      console.log(
        `      ${id}: ${requests.length} requests\n        ${describeRequests(requests).join("\n        ")}`,
      );
      expect(requests.length, `${id} made requests`).to.be.above(0);
      expect(
        requests.filter((r) => r.code === 403).map(requestKey),
        `${id}: no request refused`,
      ).to.deep.equal([]);
      if (DISCOVER) continue;
      const grants = grantsOf(readFileSync(IDENTITIES[id].file, "utf8"));
      expect(
        notAllowed([...grants, BASIC_USER], requests),
        `${id}: requests its role (or Kubernetes' system:basic-user) does not allow`,
      ).to.deep.equal([]);
      expect(unusedGrants(grants, requests), `${id}: grants no request used`).to.deep.equal([]);
    }
    expect(
      describeRequests(writes(labAuditRequests(lab.state, userOf("check")))),
      "the preflight wrote nothing",
    ).to.deep.equal([]);
  });
});
