// What the tests read from a Kubespray release's tree (../shared/kubespray, unmodified): a fork of it, its defaults
// files, and the expressions its own Calico role renders the pool's blockSize and calico-config's backend with (read
// from the tree's text, so that a test follows the release, not this file).

import { existsSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";

/**
 * Makes dir a fork of the tree, as a fork's root is: links to the tree's roles (and galaxy.yml, where the release
 * has one), so that a play placed in dir runs where a fork's cluster.yml runs.
 */
export function linkFork(tree: string, dir: string): void {
  symlinkSync(join(tree, "roles"), join(dir, "roles"));
  if (existsSync(join(tree, "galaxy.yml")))
    symlinkSync(join(tree, "galaxy.yml"), join(dir, "galaxy.yml"));
}

/** The defaults of the release's Calico role: network_plugin/calico_defaults where it exists, else calico's. */
export function calicoDefaultsFile(tree: string): string {
  const file = ["calico_defaults", "calico"]
    .map((r) => join(tree, "roles", "network_plugin", r, "defaults", "main.yml"))
    .find((f) => existsSync(f));
  if (!file) throw new Error(`${tree}: no Calico defaults file`);
  return file;
}

/** The release's defaults files: its defaults role's, then its Calico defaults. */
export function defaultsFiles(tree: string): string[] {
  const files: string[] = [];
  for (const dir of [
    "kubespray-defaults/defaults",
    "kubespray_defaults/defaults",
    "kubespray_defaults/defaults/main",
  ]) {
    const d = join(tree, "roles", dir);
    if (!existsSync(d)) continue;
    for (const f of readdirSync(d).sort()) if (/\.ya?ml$/.test(f)) files.push(join(d, f));
  }
  return [...files, calicoDefaultsFile(tree)];
}

/**
 * The pool's blockSize as the tree's install.yml creates the pool: the first `"blockSize": {{ EXPR }}` whose EXPR
 * reads the IPv4 (or the IPv6) pool's variable, e.g. `calico_pool_blocksize | default(kube_network_node_prefix)`.
 */
export function blockSizeExpression(tree: string, ipv6: boolean): string {
  const text = readFileSync(join(tree, "roles/network_plugin/calico/tasks/install.yml"), "utf8");
  const variable = ipv6 ? /\bcalico_pool_blocksize_ipv6\b/ : /\bcalico_pool_blocksize\b(?!_)/;
  const found = [...text.matchAll(/"blockSize": \{\{\s*(.+?)\s*\}\}/g)]
    .map((m) => m[1] ?? "")
    .find((e) => variable.test(e));
  if (!found) throw new Error(`${tree}: install.yml creates no pool with ${String(variable)}`);
  return found;
}

/** The value calico-config's calico_backend takes, as the tree's template renders it. */
export function backendExpression(tree: string): string {
  const template = readFileSync(
    join(tree, "roles/network_plugin/calico/templates/calico-config.yml.j2"),
    "utf8",
  );
  // v2.18: {% if calico_network_backend is defined %} ... {% else %} calico_backend: "bird" {% endif %}
  const fallback = /\{% else %\}\s*cluster_type: "kubespray,bgp"\s*calico_backend: "(\w+)"/.exec(
    template,
  )?.[1];
  return fallback ? `calico_network_backend | default('${fallback}')` : "calico_network_backend";
}
