// lab.sh up's last step for the kubespray-2.18 profile: Calico as Kubespray's real Calico role installs it. The lab
// has started as the uninstalled profile does (control plane, nodes, the lab kubelet, the prober's pods waiting
// for a network); this runs the release's roles/network_plugin/calico with its defaults roles over SSH to node-1
// (test/support/kubespray.ts, its stubs named in test/lab/README.md), with the inventory's variables from
// LAB_KUBESPRAY_VARS (JSON, default {}: the release's defaults). Usage: node kubespray-install.js RELEASE
// (LAB_STATE names the lab). Ansible's output goes to stdout (lab.sh keeps it in the lab's log folder).

import { readLabEnv } from "../support/lab.js";
import { KUBESPRAY_ANSIBLE, runKubespray, type KubesprayRelease } from "../support/kubespray.js";

const release = process.argv[2] ?? "";
if (!(release in KUBESPRAY_ANSIBLE)) {
  console.error(
    `kubespray-install: release '${release}' is none of ${Object.keys(KUBESPRAY_ANSIBLE).join(", ")}`,
  );
  process.exit(2);
}
const vars = JSON.parse(process.env.LAB_KUBESPRAY_VARS ?? "{}") as Record<string, unknown>;
const r = await runKubespray(readLabEnv(process.env.LAB_STATE), {
  release: release as KubesprayRelease,
  vars,
  plays: ["calico"],
});
console.log(r.output);
if (r.exitCode !== 0) {
  console.error(
    `kubespray-install: Kubespray ${release}'s Calico role exited ${r.exitCode} (recap ${JSON.stringify(r.recap)}); its output is above`,
  );
  process.exit(1);
}
