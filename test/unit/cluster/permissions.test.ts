import { expect } from "chai";
import type { Write } from "../../../src/calico/plan/plan.js";
import {
  canICommand,
  deniedPermissions,
  describePermission,
  permissionsFor,
} from "../../../src/cluster/permissions.js";
import { writeContext } from "../../support/builders.js";

const CTX = writeContext({ client: "kubectl" });

const WRITES: Write[] = [
  { kind: "felix", set: { vxlanEnabled: true } },
  {
    kind: "tunnelPool",
    pool: "default-pool-vxlan-tunnel",
    cidr: "172.30.0.0/24",
    nodeSelector: "all()",
    encap: "vxlan",
  },
  {
    kind: "pool",
    pool: "default-pool",
    from: { ipipMode: "Always", vxlanMode: "Never" },
    set: { ipipMode: "Never", vxlanMode: "Always" },
  },
  { kind: "felix", set: { ipipEnabled: false } },
  { kind: "backend", from: "bird", backend: "vxlan" },
] as Write[];

const LEASE = [
  "create leases.coordination.k8s.io in kube-system",
  "get leases.coordination.k8s.io/calico-encap-migrate in kube-system",
  "patch leases.coordination.k8s.io/calico-encap-migrate in kube-system",
  "update leases.coordination.k8s.io/calico-encap-migrate in kube-system",
];

describe("the permissions a migration needs before its first write (kubectl auth can-i)", () => {
  it("names the Lease's and each object the plan writes through kubectl, each once", () => {
    expect(permissionsFor(WRITES, CTX).map(describePermission)).to.deep.equal([
      ...LEASE,
      "patch felixconfigurations.crd.projectcalico.org/default",
      "create ippools.crd.projectcalico.org",
      "patch ippools.crd.projectcalico.org/default-pool",
      "patch configmaps/calico-config in kube-system",
      "patch daemonsets.apps/calico-node in kube-system",
    ]);
  });

  it("leaves out what calicoctl writes with credentials of its own (Kubespray's calicoctl.sh: admin.conf)", () => {
    expect(
      permissionsFor(WRITES, { ...CTX, client: "calicoctl" }).map(describePermission),
    ).to.deep.equal([
      ...LEASE,
      "patch configmaps/calico-config in kube-system",
      "patch daemonsets.apps/calico-node in kube-system",
    ]);
  });

  it("asks kubectl auth can-i with the kubeconfig, the namespace and the object", () => {
    const [p] = permissionsFor([{ kind: "backend", from: "bird", backend: "vxlan" }], CTX).slice(
      -1,
    );
    expect(canICommand(["kubectl", "--kubeconfig", "k"], p!, 60).argv).to.deep.equal([
      "kubectl",
      "--kubeconfig",
      "k",
      "--namespace",
      "kube-system",
      "auth",
      "can-i",
      "patch",
      "daemonsets.apps/calico-node",
    ]);
  });

  it("reads yes, no, and an answer it cannot read (an error, an old kubectl) apart", () => {
    const asked = permissionsFor([], CTX);
    const r = (rc: number, stdout: string, stderr = "") => ({
      rc,
      stdout,
      stderr,
      timedOut: false,
    });
    const out = deniedPermissions(asked, [
      r(0, "yes\n"),
      r(1, "no\n"),
      r(1, "", "error: You must be logged in to the server (Unauthorized)"),
      r(0, "yes"),
    ]);
    expect(out.denied.map(describePermission)).to.deep.equal([LEASE[1]]);
    expect(out.unknown).to.deep.equal([
      `${LEASE[2]}: error: You must be logged in to the server (Unauthorized)`,
    ]);
  });
});
