import { expect } from "chai";
import { readmeOutput, unwrapped } from "../../support/readme.js";

describe("README's quoted outputs (compared with a real run in the test that makes them)", () => {
  it("README quotes the preflight's message in the seed's case, kubespray-seed.test's", () => {
    const text = readmeOutput("seed-preflight");
    expect(text).to.match(/^The inventory does not match the live Calico configuration/);
    expect(unwrapped(text)).to.include(
      "- ConfigMap kube-system/calico-config data.calico_backend: cluster has bird, inventory (calico_network_backend) says vxlan. ",
    );
  });

  it("reads a block between its markers, unwraps it, and says when there is none", () => {
    const readme = "x\n<!-- output:a -->\n```\nline one\n  goes on\n```\n<!-- output:end -->\n";
    expect(readmeOutput("a", readme)).to.equal("line one\n  goes on");
    expect(unwrapped(readmeOutput("a", readme))).to.equal("line one goes on");
    expect(() => readmeOutput("b", readme)).to.throw(/README.md has no quoted output 'b'/);
  });
});
