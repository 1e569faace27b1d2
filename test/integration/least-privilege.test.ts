// Least privilege, held to the API server's own record (issue 39). The lab's real kube-apiserver writes its audit log
// (LAB_AUDIT=1, every request at Metadata level); the preflight and the migration run with ServiceAccount tokens
// bound to the collection's RBAC manifests (ansible/roles/calico_encap/files/rbac-*.yaml), with
// `datastore_client: kubectl` so that every read and write goes through the kubeconfig given (Kubespray's
// calicoctl.sh uses admin.conf whatever the task says). From the audit log alone: every request each identity made
// is allowed by its role, and its role grants nothing it never used; the preflight only reads.
// LEAST_PRIVILEGE_DISCOVER=1 binds both identities to cluster-admin instead and prints what they asked for.

import { expect } from "chai";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { REPO, runTask, type TaskResult } from "../support/ansible.js";
import type { Write } from "../../src/calico/plan/plan.js";
import { describePermission, permissionsFor } from "../../src/cluster/permissions.js";
import {
  BASIC_USER,
  grantsOf,
  labAuditRequests,
  notAllowed,
  unusedGrants,
  writes,
  type AuditRequest,
} from "../support/audit.js";
import { kubectl, labDown, labUp, nodesStatus, waitUntil, type Lab } from "../support/lab.js";

const DISCOVER = process.env.LEAST_PRIVILEGE_DISCOVER === "1";
const RBAC = join(REPO, "ansible", "roles", "calico_encap", "files");
const IDENTITIES = {
  check: { sa: "calico-encap-check", file: join(RBAC, "rbac-check.yaml") },
  migrate: { sa: "calico-encap-migrate", file: join(RBAC, "rbac-migrate.yaml") },
} as const;
type Identity = keyof typeof IDENTITIES;
const userOf = (id: Identity): string => `system:serviceaccount:kube-system:${IDENTITIES[id].sa}`;

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
  ...new Set(
    rs.map(
      (r) =>
        `${r.verb} ${r.group || "core"}/${r.resource}${r.subresource ? `/${r.subresource}` : ""} ${r.namespace || "-"}/${r.name || "-"} ${r.code}`,
    ),
  ),
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

  const planned: Write[] = [];

  it("a migration IPIP -> VXLAN with tunnel_pool_cidr and back with ipip_tunnel_pool_cidr, as calico-encap-migrate", async () => {
    const base = { ...args(lab, config.migrate ?? ""), wait_sleep: 1, wait_timeout: 180 };
    const into: TaskResult = (
      await runTask({
        calico_encap_migrate: {
          ...base,
          ipip_mode: "Never",
          vxlan_mode: "Always",
          network_backend: "vxlan",
          tunnel_pool_cidr: "172.30.0.0/24",
        },
      })
    ).result;
    expect(into.failed, into.msg).to.not.equal(true);
    expect(into.changed).to.equal(true);
    expect(into.warnings ?? [], "the API server answered every can-i").to.not.satisfy(
      (w: string[]) => w.some((x) => x.includes("kubectl auth can-i")),
    );
    const back: TaskResult = (
      await runTask({
        calico_encap_migrate: {
          ...base,
          ipip_mode: "Always",
          vxlan_mode: "Never",
          network_backend: "bird",
          ipip_tunnel_pool_cidr: "172.30.1.0/24",
        },
      })
    ).result;
    expect(back.failed, back.msg).to.not.equal(true);
    for (const r of [into, back])
      planned.push(
        ...((r.plan ?? []) as { write?: Write }[]).flatMap((x) => (x.write ? [x.write] : [])),
      );
  });

  it("the audit log: each identity's requests are allowed by its role, which grants nothing unused; the preflight only reads", () => {
    for (const id of Object.keys(IDENTITIES) as Identity[]) {
      const requests = labAuditRequests(lab.state, userOf(id));
      console.log(
        `      ${id}: ${requests.length} requests\n        ${describeRequests(requests).join("\n        ")}`,
      );
      expect(requests.length, `${id} made requests`).to.be.above(0);
      expect(
        requests.filter((r) => r.code === 403).map((r) => `${r.verb} ${r.resource} ${r.name}`),
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
    // The migration's writes, the Lease's aside, are exactly the objects its plans wrote, verb for verb.
    const written = writes(labAuditRequests(lab.state, userOf("migrate")))
      .filter((r) => r.resource !== "leases")
      .map(
        (r) =>
          `${r.verb} ${r.resource}${r.group ? `.${r.group}` : ""}${r.verb === "create" ? "" : `/${r.name}`}${r.namespace ? ` in ${r.namespace}` : ""}`,
      );
    const wanted = permissionsFor(planned, {
      client: "kubectl",
      calicoctlPath: "",
      kubectlPath: "",
      kubeconfig: "",
      vxlanVni: 4096,
      vxlanPort: 4789,
    })
      .filter((x) => !x.resource.startsWith("leases."))
      .map(describePermission);
    expect(
      [...new Set(written)].sort(),
      "every write request is a write of the plans, and each was made",
    ).to.deep.equal([...new Set(wanted)].sort());
    expect(
      describeRequests(writes(labAuditRequests(lab.state, userOf("check")))),
      "the preflight wrote nothing",
    ).to.deep.equal([]);
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
    const since = new Date().toISOString();
    const r: TaskResult = (
      await runTask({
        calico_encap_migrate: {
          ...args(lab, config.migrate ?? ""),
          wait_sleep: 1,
          ipip_mode: "Never",
          vxlan_mode: "Always",
          network_backend: "vxlan",
          tunnel_pool_cidr: "172.30.0.0/24",
        },
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
    await kubectl(lab, "apply", "-f", IDENTITIES.migrate.file);
  });
});
