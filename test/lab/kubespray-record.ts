// A record of what Kubespray's real Calico role wrote, so that later labs start from it without running Ansible
// again (a run takes 19 s on a quiet machine and up to 2.5 min beside other labs). The first start of a profile
// installed by Kubespray runs the role and records the objects it wrote, as the API server stores them; later
// starts create the same objects, byte for byte but for what the API server sets itself (uid, resourceVersion,
// timestamps, managed fields, status), and calico-node then starts on them as after the role. A record is keyed by
// everything that decides what the role writes: the release, the inventory's variables, the role's and the
// defaults role's files in the tree, and this project's play around it. kubespray-role.test runs the role for real
// and compares what it wrote with the record (LAB_KUBESPRAY_REPLAY=0 always runs it).

import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { REPO } from "../support/ansible.js";
import type { Lab } from "../support/lab.js";
import { kubesprayTree, type KubesprayRelease } from "../support/kubespray.js";

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: Record<string, unknown> & {
    name: string;
    namespace?: string;
    annotations?: Record<string, string>;
  };
  [k: string]: unknown;
};

/** The objects Kubespray's Calico role writes, in the order they are created again. */
const RECORDED: { args: string[]; keep: (o: Obj) => boolean }[] = [
  { args: ["-n", "kube-system", "get", "serviceaccounts"], keep: (o) => calicos(o.metadata.name) },
  { args: ["get", "clusterroles,clusterrolebindings"], keep: (o) => calicos(o.metadata.name) },
  { args: ["-n", "kube-system", "get", "configmaps"], keep: (o) => calicos(o.metadata.name) },
  {
    args: [
      "get",
      "felixconfigurations.crd.projectcalico.org,ippools.crd.projectcalico.org,bgpconfigurations.crd.projectcalico.org",
    ],
    keep: (o) => o.kind !== "FelixConfiguration" || o.metadata.name === "default",
  },
  { args: ["-n", "kube-system", "get", "daemonsets"], keep: (o) => calicos(o.metadata.name) },
];

function calicos(name: string): boolean {
  return name.includes("calico") || name === "kubernetes-services-endpoint";
}

/** What the API server sets itself, left out of a record. */
const SERVER_METADATA = [
  "uid",
  "resourceVersion",
  "creationTimestamp",
  "generation",
  "managedFields",
  "selfLink",
];
const SERVER_ANNOTATIONS = ["deprecated.daemonset.template.generation"];

/** An object as it is created again: the API server's own fields and status removed. */
export function recordable(o: Obj): Obj {
  const metadata = Object.fromEntries(
    Object.entries(o.metadata).filter(([k]) => !SERVER_METADATA.includes(k)),
  ) as Obj["metadata"];
  if (metadata.annotations) {
    const annotations = Object.fromEntries(
      Object.entries(metadata.annotations).filter(([k]) => !SERVER_ANNOTATIONS.includes(k)),
    );
    if (Object.keys(annotations).length) metadata.annotations = annotations;
    else delete metadata.annotations;
  }
  const rest: Obj = { ...o, metadata };
  delete rest.status;
  return rest;
}

async function kubectl(lab: Lab, args: string[], input?: string): Promise<string> {
  const r = await execa(lab.kubectl, ["--kubeconfig", lab.kubeconfig, ...args], { input });
  return r.stdout;
}

/** The objects Kubespray's role wrote, as a record holds them. */
export async function installedObjects(lab: Lab): Promise<Obj[]> {
  const out: Obj[] = [];
  for (const { args, keep } of RECORDED) {
    const list = JSON.parse(await kubectl(lab, [...args, "-o", "json"])) as { items: Obj[] };
    out.push(...list.items.filter(keep).map(recordable));
  }
  return out;
}

/** Every file under a folder, as "path size sha256" lines (for the record's key). */
function fingerprint(dir: string): string {
  if (!existsSync(dir)) return `${dir} absent\n`;
  const lines: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else lines.push(`${p} ${createHash("sha256").update(readFileSync(p)).digest("hex")}`);
    }
  };
  walk(dir);
  return lines.join("\n");
}

/** The lab's cache (test/lab/lib.sh's LAB_CACHE), where the records live beside its binaries. */
const LAB_CACHE = join(
  process.env.CALICO_ENCAP_CACHE || join(homedir(), ".cache", "calico-encap"),
  "lab",
);

/** Where the record of a release's install with these variables is. */
export function recordPath(release: KubesprayRelease, vars: Record<string, unknown>): string {
  const tree = kubesprayTree(release);
  const h = createHash("sha256");
  h.update(JSON.stringify({ release, vars }));
  for (const d of [
    "network_plugin/calico",
    "kubespray-defaults",
    "kubespray_defaults",
    "network_facts",
  ])
    h.update(fingerprint(join(tree, "roles", d)));
  for (const f of ["test/support/kubespray.ts", "test/lab/kubespray-record.ts"])
    h.update(readFileSync(join(REPO, f)));
  return join(LAB_CACHE, "kubespray-installs", `${release}-${h.digest("hex").slice(0, 16)}.json`);
}

export interface InstallRecord {
  release: KubesprayRelease;
  vars: Record<string, unknown>;
  recorded: string;
  objects: Obj[];
}

export function writeRecord(path: string, record: InstallRecord): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(record, null, 1) + "\n");
  renameSync(tmp, path);
}

export function readRecord(path: string): InstallRecord | null {
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as InstallRecord) : null;
}

/** Creates a record's objects on the lab: Calico's CRDs first (the lab's own, which the role's stub applies too). */
export async function replay(lab: Lab, record: InstallRecord): Promise<void> {
  const crds = join(lab.env.LAB_CALICO_MODULE_DIR ?? "", "libcalico-go", "config", "crd");
  if (!existsSync(crds)) throw new Error(`Calico CRDs not found in ${crds}`);
  await kubectl(lab, ["create", "-f", crds]);
  await kubectl(lab, ["wait", "--for", "condition=established", "--timeout=60s", "-f", crds]);
  // Through the API itself: `kubectl create` would rewrite an object's last-applied-configuration annotation from
  // the object (it updates one that exists), and that annotation is part of what Kubespray left.
  for (const o of record.objects)
    await kubectl(lab, ["create", "--raw", collectionPath(o), "-f", "-"], JSON.stringify(o));
}

/** The API path that creates an object: /api/v1 or /apis/<group>/<version>, its namespace, its resource. */
export function collectionPath(o: Obj): string {
  if (/y$|s$/.test(o.kind)) throw new Error(`no plural known for kind ${o.kind}`);
  const base = o.apiVersion.includes("/") ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
  const ns = o.metadata.namespace ? `/namespaces/${o.metadata.namespace}` : "";
  return `${base}${ns}/${o.kind.toLowerCase()}s`;
}
