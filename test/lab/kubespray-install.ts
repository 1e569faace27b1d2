// lab.sh up's last step for a profile Kubespray installs (kubespray-2.18: v2.18.2 with its defaults; uninstalled with
// LAB_KUBESPRAY_INSTALL): Calico as Kubespray's real Calico role installs it. The lab has started as the
// uninstalled profile does (control plane, nodes, the lab kubelet, the prober's pods waiting for a network). The
// first time, this runs the release's roles/network_plugin/calico with its defaults roles over SSH to node-1
// (test/support/kubespray.ts, its stubs named in test/lab/README.md), with the inventory's variables from
// LAB_KUBESPRAY_VARS (JSON, default {}: the release's defaults), and records what the role wrote; later starts
// create the recorded objects instead (kubespray-record.ts). LAB_KUBESPRAY_REPLAY=0 always runs the role.
// Usage: node kubespray-install.js RELEASE (LAB_STATE names the lab). Ansible's output goes to stdout.

import { readLabEnv } from "../support/lab.js";
import { KUBESPRAY_ANSIBLE, runKubespray, type KubesprayRelease } from "../support/kubespray.js";
import {
  installedObjects,
  readRecord,
  recordPath,
  replay,
  writeRecord,
} from "./kubespray-record.js";

const release = process.argv[2] ?? "";
if (!(release in KUBESPRAY_ANSIBLE)) {
  console.error(
    `kubespray-install: release '${release}' is none of ${Object.keys(KUBESPRAY_ANSIBLE).join(", ")}`,
  );
  process.exit(2);
}
const r = release as KubesprayRelease;
const vars = JSON.parse(process.env.LAB_KUBESPRAY_VARS || "{}") as Record<string, unknown>;
const lab = readLabEnv(process.env.LAB_STATE);
// What the role writes goes through the lab's calicoctl onto the lab's Calico CRDs, so a lab of another Calico
// (LAB_CALICO=v3.30.1, test/lab/lib.sh) keeps records of its own; v3.31.0's keep their names.
const calico = lab.env.LAB_CALICO_RELEASE ?? "v3.31.0";
const path =
  calico === "v3.31.0"
    ? recordPath(r, vars)
    : recordPath(r, vars).replace(/\.json$/, `-calico-${calico}.json`);
const record = process.env.LAB_KUBESPRAY_REPLAY === "0" ? null : readRecord(path);
if (record) {
  await replay(lab, record);
  console.log(
    `replayed ${path}: the ${record.objects.length} objects Kubespray ${release}'s Calico role wrote (recorded ${record.recorded})`,
  );
} else {
  const run = await runKubespray(lab, { release: r, vars, plays: ["calico"] });
  console.log(run.output);
  if (run.exitCode !== 0) {
    console.error(
      `kubespray-install: Kubespray ${release}'s Calico role exited ${run.exitCode} (recap ${JSON.stringify(run.recap)}); its output is above`,
    );
    process.exit(1);
  }
  const objects = await installedObjects(lab);
  writeRecord(path, { release: r, vars, recorded: new Date().toISOString(), objects });
  console.log(
    `ran Kubespray ${release}'s Calico role; recorded its ${objects.length} objects in ${path}`,
  );
}
