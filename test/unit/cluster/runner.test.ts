// The local runner's command_timeout holds for a wrapper script whose child keeps the pipes open (Kubespray's
// calicoctl.sh runs calicoctl as a child): the whole process group is stopped at the timeout.

import { expect } from "chai";
import { LocalRunner } from "../../../src/cluster/runner.js";

describe("the local runner", () => {
  it("stops a wrapper and its child at the timeout", async function () {
    this.timeout(20000);
    const t0 = Date.now();
    const r = await new LocalRunner().run(["bash", "-c", "sleep 30; echo never"], {
      timeoutSeconds: 1,
    });
    expect(Date.now() - t0, "returned at the timeout, not when the child ended").to.be.below(5000);
    expect(r).to.deep.include({ rc: 124, timedOut: true, stdout: "" });
  });

  it("still returns what a command prints, its exit code, and stdin", async () => {
    const r = await new LocalRunner().run(["bash", "-c", "cat; echo err >&2; exit 3"], {
      timeoutSeconds: 5,
      stdin: "in\n",
    });
    expect(r).to.deep.equal({ rc: 3, stdout: "in\n", stderr: "err\n", timedOut: false });
  });
});
