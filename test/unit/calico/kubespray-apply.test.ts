// What a backend switch writes so that Kubespray's next `kubectl apply` of the same render changes nothing: its env
// order and the last-applied-configuration annotations (src/calico/shared/kubespray-apply.ts, src/cluster/write.ts).

import { expect } from "chai";
import {
  LAST_APPLIED,
  configMapLastApplied,
  daemonSetLastApplied,
  envOrderFor,
  kubectlJson,
} from "../../../src/calico/shared/kubespray-apply.js";
import { commandsFor, daemonSetPatch } from "../../../src/cluster/write.js";
import { kubesprayAppliedFrom } from "../../../src/cluster/parse-k8s.js";
import { writeContext } from "../../support/builders.js";

/** calico-node's env as Kubespray's template renders it for bird (the VXLAN pair would follow WAIT_FOR_DATASTORE). */
const BIRD_ENV = [
  { name: "DATASTORE_TYPE", value: "kubernetes" },
  { name: "WAIT_FOR_DATASTORE", value: "true" },
  {
    name: "CALICO_NETWORKING_BACKEND",
    valueFrom: { configMapKeyRef: { key: "calico_backend", name: "calico-config" } },
  },
  { name: "CALICO_IPV4POOL_IPIP", value: "Off" },
];

function daemonSet(env: object[], bird: boolean): object {
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { annotations: {}, name: "calico-node", namespace: "kube-system" },
    spec: {
      template: {
        spec: {
          containers: [
            {
              name: "calico-node",
              image: "quay.io/calico/node:v3.22.3",
              env,
              livenessProbe: {
                exec: {
                  command: ["/bin/calico-node", "-felix-live", ...(bird ? ["-bird-live"] : [])],
                },
                periodSeconds: 10,
              },
              readinessProbe: {
                exec: {
                  command: ["/bin/calico-node", ...(bird ? ["-bird-ready"] : []), "-felix-ready"],
                },
                periodSeconds: 10,
              },
            },
          ],
        },
      },
    },
  };
}

const VXLAN_ENV = [
  BIRD_ENV[0],
  BIRD_ENV[1],
  { name: "FELIX_VXLANVNI", value: "4096" },
  { name: "FELIX_VXLANPORT", value: "4789" },
  ...BIRD_ENV.slice(2),
] as object[];

describe("what Kubespray's next apply compares the backend's objects with", () => {
  it("puts FELIX_VXLANVNI and FELIX_VXLANPORT right after WAIT_FOR_DATASTORE for vxlan, and drops them otherwise", () => {
    const names = BIRD_ENV.map((e) => e.name);
    expect(envOrderFor(names, "vxlan")).to.deep.equal([
      "DATASTORE_TYPE",
      "WAIT_FOR_DATASTORE",
      "FELIX_VXLANVNI",
      "FELIX_VXLANPORT",
      "CALICO_NETWORKING_BACKEND",
      "CALICO_IPV4POOL_IPIP",
    ]);
    expect(envOrderFor(envOrderFor(names, "vxlan"), "bird")).to.deep.equal(names);
    expect(envOrderFor(["FELIX_VXLANPORT", "FELIX_VXLANVNI", "A"], "vxlan")).to.deep.equal([
      "A",
      "FELIX_VXLANVNI",
      "FELIX_VXLANPORT",
    ]);
  });

  it("writes JSON as kubectl does: keys sorted, compact, <, > and & escaped, a final newline", () => {
    expect(kubectlJson({ b: 1, a: { d: "<x>&", c: [2, { f: 1, e: 0 }] } })).to.equal(
      '{"a":{"c":[2,{"e":0,"f":1}],"d":"\\u003cx\\u003e\\u0026"},"b":1}\n',
    );
  });

  it("turns the bird render's last-applied-configuration into the vxlan render's, and back", () => {
    const bird = kubectlJson(daemonSet(BIRD_ENV, true));
    const vxlan = kubectlJson(daemonSet(VXLAN_ENV, false));
    expect(daemonSetLastApplied(bird, "vxlan", 4096, 4789)).to.equal(vxlan);
    expect(daemonSetLastApplied(vxlan, "bird", 4096, 4789)).to.equal(bird);
    const cmBird = kubectlJson({
      apiVersion: "v1",
      data: { calico_backend: "bird", cluster_type: "kubespray,bgp" },
      kind: "ConfigMap",
      metadata: { annotations: {}, name: "calico-config", namespace: "kube-system" },
    });
    expect(configMapLastApplied(cmBird, "vxlan")).to.equal(
      '{"apiVersion":"v1","data":{"calico_backend":"vxlan","cluster_type":"kubespray"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"calico-config","namespace":"kube-system"}}\n',
    );
    expect(configMapLastApplied("not json", "vxlan")).to.equal(null);
  });

  it("patches the DaemonSet with Kubespray's env order and annotation when Kubespray applied it", () => {
    const live = {
      ...daemonSet(BIRD_ENV, true),
      metadata: {
        name: "calico-node",
        annotations: { [LAST_APPLIED]: kubectlJson(daemonSet(BIRD_ENV, true)) },
      },
    };
    const applied = kubesprayAppliedFrom(undefined, live);
    expect(applied?.envNames).to.deep.equal(BIRD_ENV.map((e) => e.name));
    const patch = daemonSetPatch("vxlan", 4096, 4789, applied) as {
      metadata: { annotations: Record<string, string> };
      spec: { template: { spec: { containers: Record<string, unknown>[] } } };
    };
    expect(patch.spec.template.spec.containers[0]?.["$setElementOrder/env"]).to.deep.equal(
      envOrderFor(applied?.envNames ?? [], "vxlan").map((name) => ({ name })),
    );
    expect(patch.metadata.annotations[LAST_APPLIED]).to.equal(
      kubectlJson(daemonSet(VXLAN_ENV, false)),
    );
    const [cm] = commandsFor(
      { kind: "backend", from: "bird", backend: "vxlan", ...(applied ? { applied } : {}) },
      writeContext({ client: "kubectl" }),
    );
    expect(
      cm?.argv.at(-1),
      "no annotation on calico-config: kubectl apply did not write one",
    ).to.equal('{"data":{"calico_backend":"vxlan","cluster_type":"kubespray"}}');
  });

  it("leaves the order and the annotations alone on a DaemonSet nobody applied", () => {
    expect(daemonSetPatch("vxlan", 4096, 4789)).not.to.have.property("metadata");
    expect(JSON.stringify(daemonSetPatch("vxlan", 4096, 4789))).not.to.include("$setElementOrder");
  });
});
