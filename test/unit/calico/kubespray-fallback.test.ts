import { expect } from "chai";
import {
  bareFallback,
  fallbackVariables,
  parseFallback,
} from "../../../src/calico/shared/kubespray-fallback.js";
import { loadModuleSchemas } from "../../../tools/module-schemas.js";
import { repoRoot } from "../../../tools/paths.js";

describe("x-kubespray-fallback templates", () => {
  it("reads one {variable} as that variable, text around {variables} as a path", () => {
    expect(parseFallback("{kube_pods_subnet}")).to.deep.equal([{ variable: "kube_pods_subnet" }]);
    expect(bareFallback("{kube_pods_subnet}")).to.equal("kube_pods_subnet");
    expect(parseFallback("{bin_dir}/calicoctl.sh")).to.deep.equal([
      { variable: "bin_dir" },
      { text: "/calicoctl.sh" },
    ]);
    expect(bareFallback("{bin_dir}/calicoctl.sh")).to.equal(null);
    expect(fallbackVariables("/x/{a}/{b_2}.conf")).to.deep.equal(["a", "b_2"]);
  });

  it("refuses what is not a template over variables, showing the form", () => {
    for (const bad of ["", "/usr/local/bin", "{bin_dir", "{bin-dir}/x", "{{ bin_dir }}/x", "{}"])
      expect(() => parseFallback(bad), bad).to.throw(
        `x-kubespray-fallback ${JSON.stringify(bad)} is not a template over Kubespray variables, e.g. "{kube_pods_subnet}" or "{bin_dir}/calicoctl.sh"`,
      );
  });

  it("every annotation in schemas/ is a template over variables", async () => {
    let n = 0;
    for (const { options } of await loadModuleSchemas(repoRoot))
      for (const p of Object.values(options.properties)) {
        const template = p["x-kubespray-fallback"];
        if (template === undefined) continue;
        expect(fallbackVariables(template).length, template).to.be.greaterThan(0);
        n++;
      }
    expect(n).to.equal(10);
  });
});
