// lab.sh up starts from what it creates itself: what a sourced lab env exports (another lab's admin token,
// kubeconfig, datastore) is dropped before anything starts, and it says which it dropped.

import { expect } from "chai";
import { execa } from "execa";
import { join } from "node:path";
import { REPO } from "../../support/ansible.js";

const LAB_SH = join(REPO, "test", "lab", "lab.sh");

describe("lab.sh and a shell that sourced another lab's env", () => {
  it("forgets every variable a lab's env file exports, naming them, and keeps the slot's inputs", async () => {
    const script = `source ${LAB_SH}
forget_sourced_env
echo "token=\${LAB_ADMIN_TOKEN-unset} kubeconfig=\${KUBECONFIG-unset} datastore=\${DATASTORE_TYPE-unset} prefix=\${LAB_NETNS_PREFIX-unset} url=\${LAB_APISERVER_URL-unset}"`;
    const r = await execa("bash", ["-c", script], {
      env: {
        LAB_ADMIN_TOKEN: "0123",
        KUBECONFIG: "/elsewhere/admin.conf",
        DATASTORE_TYPE: "etcdv3",
        LAB_NETNS_PREFIX: "calabb-",
        LAB_APISERVER_PORT: "28443",
        LAB_APISERVER_URL: "https://127.0.0.1:1",
      },
    });
    expect(r.stdout).to.equal(
      "token=unset kubeconfig=unset datastore=unset prefix=calabb- url=https://127.0.0.1:28443",
    );
    expect(r.stderr).to.match(
      /ignoring what a sourced lab env set: .*KUBECONFIG.*LAB_ADMIN_TOKEN|ignoring what a sourced lab env set: .*LAB_ADMIN_TOKEN.*KUBECONFIG/,
    );
  });

  it("every variable an env file exports is forgotten, save PATH and the slot's own settings", async () => {
    // The names lab.sh writes with `export NAME=` into $LAB_STATE/env, read from the script itself.
    const text = (await execa("cat", [LAB_SH])).stdout;
    const exported = new Set(
      [...text.matchAll(/^export ([A-Z0-9_]+)=/gm)].map((m) => m[1]!).filter((n) => n !== "PATH"),
    );
    // The slot's own settings, and the URLs lab.sh computes from its ports as it starts.
    const slotInputs = new Set([
      "LAB_APISERVER_URL",
      "LAB_STATE",
      "LAB_ETCD_URL",
      "LAB_BIN",
      "LAB_NETNS_PREFIX",
      "LAB_BRIDGE",
      "LAB_UNDERLAY",
      "LAB_DATAPLANE_NODES",
    ]);
    const r = await execa("bash", [
      "-c",
      `source ${LAB_SH}; printf '%s\\n' "\${LAB_ENV_OUTPUTS[@]}"`,
    ]);
    const forgotten = new Set(r.stdout.split("\n"));
    for (const name of exported)
      if (!slotInputs.has(name))
        expect(forgotten, `${name} is exported but not forgotten`).to.include(name);
  });
});
