import { expect } from "chai";
import { unwrittenMark, type Listed } from "../../support/lab.js";

const ds = (resourceVersion: string, generation: number, image: string): Listed => ({
  kind: "DaemonSet",
  metadata: { name: "calico-node", namespace: "kube-system", resourceVersion, generation },
  spec: { template: { spec: { containers: [{ name: "calico-node", image }] } } },
});

describe("what proves an object unwritten", () => {
  it("a DaemonSet whose status alone changed (a new resourceVersion) is unwritten", () => {
    expect(unwrittenMark(ds("419", 1, "calico/node:v3.31.0"))).to.equal(
      unwrittenMark(ds("403", 1, "calico/node:v3.31.0")),
    );
  });

  it("a DaemonSet whose spec or generation changed is written", () => {
    const before = unwrittenMark(ds("403", 1, "calico/node:v3.31.0"));
    expect(unwrittenMark(ds("419", 1, "calico/node:v3.30.1"))).to.not.equal(before);
    expect(unwrittenMark(ds("419", 2, "calico/node:v3.31.0"))).to.not.equal(before);
    const annotated = ds("419", 1, "calico/node:v3.31.0");
    annotated.metadata.annotations = { "calico-encap-migrate/max-unavailable": "20%" };
    expect(unwrittenMark(annotated)).to.not.equal(before);
  });

  it("any other object is its resourceVersion", () => {
    const cm: Listed = {
      kind: "ConfigMap",
      metadata: { name: "calico-config", resourceVersion: "349" },
    };
    expect(unwrittenMark(cm)).to.equal("349");
  });
});
