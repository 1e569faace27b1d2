// What Kubespray's next run compares the backend's objects with. Its Calico role applies calico-config and the
// calico-node DaemonSet with `kubectl apply --force` (its kube module, state latest): a three-way merge of its new
// render, the live object and the object's last-applied-configuration annotation, whose strategic merge patch
// carries the render's order of every merged list ($setElementOrder). A backend switch therefore writes the
// backend's parts as Kubespray's templates render them (calico-config.yml.j2, calico-node.yml.j2, every release
// from v2.18 to v2.31):
// - calico-config: cluster_type "kubespray,bgp" and calico_backend "bird", or "kubespray" and the backend;
// - calico-node: FELIX_VXLANVNI and FELIX_VXLANPORT right after WAIT_FOR_DATASTORE for vxlan only, and the bird
//   flags of the probes for bird only;
// - and the same parts in each object's last-applied-configuration, so that the next apply of the same render finds
//   nothing to change (the API server would put added env first, and a stale annotation would feed the merge).
// Pure: the live names and annotations come from the observation (parse-k8s.ts).

import type { Backend } from "./model.js";

export const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

export const VXLAN_ENV = ["FELIX_VXLANVNI", "FELIX_VXLANPORT"] as const;
/** Kubespray's templates put the VXLAN env right after this one. */
const VXLAN_ENV_AFTER = "WAIT_FOR_DATASTORE";
const CALICO_NODE_BIN = "/bin/calico-node";

/** calico-node's VXLAN env entries as Kubespray's template renders them for backend vxlan. */
export function vxlanEnv(vni: number, port: number): { name: string; value: string }[] {
  const value = { FELIX_VXLANVNI: String(vni), FELIX_VXLANPORT: String(port) };
  return VXLAN_ENV.map((name) => ({ name, value: value[name] }));
}

export function clusterType(backend: Backend): string {
  return backend === "bird" ? "kubespray,bgp" : "kubespray";
}

export function livenessCommand(backend: Backend): string[] {
  return [CALICO_NODE_BIN, "-felix-live", ...(backend === "bird" ? ["-bird-live"] : [])];
}

export function readinessCommand(backend: Backend): string[] {
  return [CALICO_NODE_BIN, ...(backend === "bird" ? ["-bird-ready"] : []), "-felix-ready"];
}

/**
 * calico-node's env, in the order Kubespray's template renders it for a backend: the VXLAN entries dropped, then
 * for vxlan put back right after WAIT_FOR_DATASTORE (at the end when there is none).
 */
export function envInKubesprayOrder<T>(
  env: T[],
  nameOf: (e: T) => string,
  backend: Backend,
  vxlan: (name: (typeof VXLAN_ENV)[number]) => T,
): T[] {
  const rest = env.filter((e) => !(VXLAN_ENV as readonly string[]).includes(nameOf(e)));
  if (backend !== "vxlan") return rest;
  const at = rest.findIndex((e) => nameOf(e) === VXLAN_ENV_AFTER);
  const i = at === -1 ? rest.length : at + 1;
  return [...rest.slice(0, i), ...VXLAN_ENV.map(vxlan), ...rest.slice(i)];
}

/** The env names after a backend switch, in Kubespray's order. */
export function envOrderFor(names: string[], backend: Backend): string[] {
  return envInKubesprayOrder(
    names,
    (n) => n,
    backend,
    (n) => n,
  );
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * JSON as kubectl writes last-applied-configuration (Go's encoding/json of the object): keys sorted, no spaces,
 * <, > and & escaped, a final newline.
 */
export function kubectlJson(value: unknown): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : isObj(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted(v[k])]),
          )
        : v;
  return (
    JSON.stringify(sorted(value))
      .replace(/</g, "\\u003c")
      .replace(/>/g, "\\u003e")
      .replace(/&/g, "\\u0026")
      .replace(/\u2028/g, "\\u2028")
      .replace(/\u2029/g, "\\u2029") + "\n"
  );
}

function parse(annotation: string): Obj | null {
  try {
    const v: unknown = JSON.parse(annotation);
    return isObj(v) ? v : null;
  } catch {
    return null;
  }
}

/** calico-config's last-applied-configuration as Kubespray's render for a backend would make it. */
export function configMapLastApplied(annotation: string, backend: Backend): string | null {
  const o = parse(annotation);
  if (!o || !isObj(o.data)) return null;
  return kubectlJson({
    ...o,
    data: { ...o.data, calico_backend: backend, cluster_type: clusterType(backend) },
  });
}

/** The DaemonSet's last-applied-configuration as Kubespray's render for a backend would make it. */
export function daemonSetLastApplied(
  annotation: string,
  backend: Backend,
  vni: number,
  port: number,
): string | null {
  const o = parse(annotation);
  const spec = isObj(o?.spec) ? o.spec : null;
  const template = isObj(spec?.template) ? spec.template : null;
  const podSpec = isObj(template?.spec) ? template.spec : null;
  if (!o || !spec || !template || !podSpec || !Array.isArray(podSpec.containers)) return null;
  const vxlan = new Map(vxlanEnv(vni, port).map((e) => [e.name, e]));
  const containers = podSpec.containers.map((c: unknown) => {
    if (!isObj(c) || c.name !== "calico-node") return c;
    const probe = (p: unknown, command: string[]): unknown =>
      isObj(p) && isObj(p.exec) ? { ...p, exec: { ...p.exec, command } } : p;
    const env = Array.isArray(c.env) ? c.env : [];
    return {
      ...c,
      env: envInKubesprayOrder(
        env,
        (e) => (isObj(e) && typeof e.name === "string" ? e.name : ""),
        backend,
        (name) => vxlan.get(name),
      ),
      livenessProbe: probe(c.livenessProbe, livenessCommand(backend)),
      readinessProbe: probe(c.readinessProbe, readinessCommand(backend)),
    };
  });
  return kubectlJson({
    ...o,
    spec: { ...spec, template: { ...template, spec: { ...podSpec, containers } } },
  });
}
