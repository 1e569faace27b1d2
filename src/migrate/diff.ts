// Ansible's diff for calico_encap_migrate: before and after of every object the plan writes. Pure.

import type { ClusterObservation } from "../calico/shared/observation.js";
import type { Write } from "../calico/plan/plan.js";
import { CALICO_NODE_DAEMONSET as ROLLOUT } from "../calico/shared/rollout.js";
import { runningBackend } from "../calico/shared/routing.js";
import { tunnelPoolManifest } from "../calico/shared/tunnel-pool.js";

type Objects = Record<string, Record<string, unknown>>;

function before(obs: ClusterObservation, writes: readonly Write[]): Objects {
  const out: Objects = {};
  for (const w of writes) {
    if (w.kind === "felix") {
      const f = obs.live.felixDefault ?? {};
      out["FelixConfiguration/default"] = {
        ...out["FelixConfiguration/default"],
        ipipEnabled: f.ipipEnabled ?? null,
        vxlanEnabled: f.vxlanEnabled ?? null,
        ...(w.set.programClusterRoutes !== undefined
          ? { programClusterRoutes: f.programClusterRoutes ?? null }
          : {}),
      };
    } else if (w.kind === "pool") {
      const p = obs.live.pools.find((x) => x.name === w.pool);
      out[`IPPool/${w.pool}`] = { ipipMode: p?.ipipMode ?? null, vxlanMode: p?.vxlanMode ?? null };
    } else if (w.kind === "rollout") {
      out[ROLLOUT] = { ...out[ROLLOUT], maxUnavailable: obs.rollout.maxUnavailable ?? null };
    } else if (w.kind === "tunnelPool") {
      out[`IPPool/${w.pool}`] = {};
    } else {
      out["ConfigMap kube-system/calico-config"] = { calico_backend: runningBackend(obs.live) };
      out[ROLLOUT] = { ...out[ROLLOUT], template_backend: obs.rollout.templateBackend };
    }
  }
  return out;
}

function after(start: Objects, writes: readonly Write[]): Objects {
  const out: Objects = structuredClone(start);
  for (const w of writes) {
    if (w.kind === "felix") Object.assign(out["FelixConfiguration/default"] ?? {}, w.set);
    else if (w.kind === "pool") Object.assign(out[`IPPool/${w.pool}`] ?? {}, w.set);
    else if (w.kind === "rollout")
      out[ROLLOUT] = { ...out[ROLLOUT], maxUnavailable: w.maxUnavailable };
    else if (w.kind === "tunnelPool")
      out[`IPPool/${w.pool}`] = (
        tunnelPoolManifest(w.pool, w.cidr, w.nodeSelector, w.encap) as {
          spec: Record<string, unknown>;
        }
      ).spec;
    else {
      out["ConfigMap kube-system/calico-config"] = { calico_backend: w.backend };
      out[ROLLOUT] = { ...out[ROLLOUT], template_backend: w.backend };
    }
  }
  return out;
}

export function migrationDiff(
  obs: ClusterObservation,
  writes: readonly Write[],
): { before: Objects; after: Objects } {
  const b = before(obs, writes);
  return { before: b, after: after(b, writes) };
}
