import { expect } from "chai";
import { collectionPath, recordable } from "../../lab/kubespray-record.js";

describe("the record of Kubespray's install (test/lab/kubespray-record.ts)", () => {
  it("creates each object at its API collection, namespaced or not", () => {
    const o = (apiVersion: string, kind: string, namespace?: string) => ({
      apiVersion,
      kind,
      metadata: { name: "x", ...(namespace ? { namespace } : {}) },
    });
    expect(collectionPath(o("v1", "ServiceAccount", "kube-system"))).to.equal(
      "/api/v1/namespaces/kube-system/serviceaccounts",
    );
    expect(collectionPath(o("apps/v1", "DaemonSet", "kube-system"))).to.equal(
      "/apis/apps/v1/namespaces/kube-system/daemonsets",
    );
    expect(collectionPath(o("crd.projectcalico.org/v1", "IPPool"))).to.equal(
      "/apis/crd.projectcalico.org/v1/ippools",
    );
    expect(() => collectionPath(o("networking.k8s.io/v1", "NetworkPolicy", "a"))).to.throw(
      "no plural known for kind NetworkPolicy",
    );
  });

  it("keeps what Kubespray wrote and drops what the API server sets itself", () => {
    const r = recordable({
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      metadata: {
        name: "calico-node",
        namespace: "kube-system",
        uid: "u",
        resourceVersion: "7",
        generation: 2,
        creationTimestamp: "t",
        managedFields: [],
        annotations: {
          "deprecated.daemonset.template.generation": "2",
          "kubectl.kubernetes.io/last-applied-configuration": "{}\n",
        },
      },
      spec: { a: 1 },
      status: { ready: 3 },
    });
    expect(r).to.deep.equal({
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      metadata: {
        name: "calico-node",
        namespace: "kube-system",
        annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}\n" },
      },
      spec: { a: 1 },
    });
  });
});
