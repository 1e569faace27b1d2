import { expect } from "chai";
import { auditRequests, grantsOf, notAllowed, unusedGrants, writes } from "../../support/audit.js";

// Three events as kube-apiserver's audit log writes them (Metadata level, JSON lines), trimmed to what is read.
const event = (o: Record<string, unknown>): string =>
  JSON.stringify({ kind: "Event", level: "Metadata", stage: "ResponseComplete", ...o });
const LOG = [
  event({
    verb: "get",
    user: { username: "u" },
    objectRef: {
      resource: "configmaps",
      namespace: "kube-system",
      name: "calico-config",
      apiVersion: "v1",
    },
    responseStatus: { code: 200 },
  }),
  event({
    verb: "list",
    user: { username: "u" },
    objectRef: { resource: "ippools", apiGroup: "crd.projectcalico.org" },
    responseStatus: { code: 200 },
  }),
  event({
    verb: "patch",
    user: { username: "u" },
    objectRef: {
      resource: "felixconfigurations",
      apiGroup: "crd.projectcalico.org",
      name: "default",
    },
    responseStatus: { code: 200 },
  }),
  event({
    stage: "RequestReceived",
    verb: "get",
    user: { username: "u" },
    objectRef: { resource: "nodes" },
  }),
  event({ verb: "get", user: { username: "other" }, requestURI: "/readyz" }),
].join("\n");

const ROLE = `
apiVersion: v1
kind: ServiceAccount
metadata: {name: u, namespace: kube-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: u}
rules:
  - apiGroups: [crd.projectcalico.org]
    resources: [ippools]
    verbs: [list]
  - apiGroups: [crd.projectcalico.org]
    resources: [felixconfigurations]
    resourceNames: [default]
    verbs: [patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: u, namespace: kube-system}
rules:
  - apiGroups: [""]
    resources: [configmaps]
    resourceNames: [calico-config]
    verbs: [get]
`;

describe("the API server's audit log against RBAC rules (least-privilege.test)", () => {
  const requests = auditRequests(LOG);

  it("reads the completed resource requests, not the received stage or non-resource URLs", () => {
    expect(
      requests.map((r) => `${r.verb} ${r.group}/${r.resource} ${r.namespace}/${r.name}`),
    ).to.deep.equal([
      "get /configmaps kube-system/calico-config",
      "list crd.projectcalico.org/ippools /",
      "patch crd.projectcalico.org/felixconfigurations /default",
    ]);
    expect(writes(requests).map((r) => r.verb)).to.deep.equal(["patch"]);
  });

  it("allows every request the role names, namespace and object included, and finds no unused grant", () => {
    const grants = grantsOf(ROLE);
    expect(grants).to.have.length(3);
    expect(notAllowed(grants, requests)).to.deep.equal([]);
    expect(unusedGrants(grants, requests)).to.deep.equal([]);
  });

  it("names a request outside the role: another object, another namespace, another verb", () => {
    const grants = grantsOf(ROLE);
    const more = auditRequests(
      [
        event({
          verb: "patch",
          user: { username: "u" },
          objectRef: {
            resource: "felixconfigurations",
            apiGroup: "crd.projectcalico.org",
            name: "node.node-1",
          },
          responseStatus: { code: 403 },
        }),
        event({
          verb: "get",
          user: { username: "u" },
          objectRef: { resource: "configmaps", namespace: "default", name: "calico-config" },
          responseStatus: { code: 403 },
        }),
        event({
          verb: "delete",
          user: { username: "u" },
          objectRef: { resource: "ippools", apiGroup: "crd.projectcalico.org", name: "x" },
          responseStatus: { code: 403 },
        }),
      ].join("\n"),
    );
    expect(notAllowed(grants, more)).to.deep.equal([
      "patch crd.projectcalico.org/felixconfigurations -/node.node-1",
      "get core/configmaps default/calico-config",
      "delete crd.projectcalico.org/ippools -/x",
    ]);
  });

  it("names a grant no request used", () => {
    const grants = grantsOf(ROLE.replace("verbs: [list]", "verbs: [list, watch]"));
    expect(unusedGrants(grants, requests)).to.deep.equal(["watch crd.projectcalico.org/ippools"]);
  });
});
