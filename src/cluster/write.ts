// The writes calico_encap_migrate makes, as argv arrays: through calicoctl (validated by Calico) when that is
// the client, else kubectl merge patches on the crd.projectcalico.org objects (the planner has already
// checked Calico's rules). Each touches only the fields it owns.

import {
  LAST_APPLIED,
  VXLAN_ENV,
  clusterType,
  configMapLastApplied,
  daemonSetLastApplied,
  envOrderFor,
  livenessCommand,
  readinessCommand,
  vxlanEnv,
} from "../calico/shared/kubespray-apply.js";
import type { Backend, KubesprayApplied } from "../calico/shared/model.js";
import type { Write } from "../calico/plan/plan.js";
import type { Permission } from "./runner.js";
import { kubectlBase } from "./read-kubectl.js";
import { tunnelPoolManifest } from "../calico/shared/tunnel-pool.js";
import {
  CALICO_NODE_DAEMONSET,
  HELD_MAX_UNAVAILABLE,
  heldValue,
} from "../calico/shared/rollout.js";

export interface WriteContext {
  client: "calicoctl" | "kubectl";
  calicoctlPath: string;
  kubectlPath: string;
  kubeconfig: string;
  vxlanVni: number;
  vxlanPort: number;
}

export interface Command {
  argv: string[];
  /** Written to the command's standard input (a manifest for `create -f -`). */
  stdin?: string;
  /** What the command changes, for logs and errors. */
  what: string;
  /** The permission the kubeconfig's identity needs for it, when kubectl runs it (calicoctl has its own). */
  needs?: Permission;
}

/**
 * Kubespray's calico-node template per backend: bird probes only for bird, FELIX_VXLANVNI/PORT only for vxlan, and
 * those right after WAIT_FOR_DATASTORE where Kubespray renders them ($setElementOrder: the API server would put them
 * first). With what Kubespray's last apply left, its last-applied-configuration changes the same way, so that its
 * next apply of the same render changes nothing (kubespray-apply.ts).
 */
export function daemonSetPatch(
  backend: Backend,
  vni: number,
  port: number,
  applied?: KubesprayApplied,
): object {
  const env =
    backend === "vxlan"
      ? vxlanEnv(vni, port)
      : VXLAN_ENV.map((name) => ({ name, $patch: "delete" }));
  const order =
    backend === "vxlan" && applied
      ? { "$setElementOrder/env": envOrderFor(applied.envNames, backend).map((name) => ({ name })) }
      : {};
  const lastApplied = applied?.daemonSet
    ? daemonSetLastApplied(applied.daemonSet, backend, vni, port)
    : null;
  return {
    ...(lastApplied ? { metadata: { annotations: { [LAST_APPLIED]: lastApplied } } } : {}),
    spec: {
      template: {
        spec: {
          containers: [
            {
              name: "calico-node",
              livenessProbe: { exec: { command: livenessCommand(backend) } },
              readinessProbe: { exec: { command: readinessCommand(backend) } },
              ...order,
              env,
            },
          ],
        },
      },
    },
  };
}

/** calico-config's backend keys as Kubespray renders them, and its last-applied-configuration to match. */
export function configMapPatch(
  backend: Backend,
  applied?: KubesprayApplied,
): { metadata?: object; data: { calico_backend: Backend; cluster_type: string } } {
  const lastApplied = applied?.configMap ? configMapLastApplied(applied.configMap, backend) : null;
  return {
    ...(lastApplied ? { metadata: { annotations: { [LAST_APPLIED]: lastApplied } } } : {}),
    data: { calico_backend: backend, cluster_type: clusterType(backend) },
  };
}

/**
 * A projectcalico.org/v3 manifest as the crd.projectcalico.org object kubectl creates: the CRD's apiVersion, and
 * kubectl has no calicoctl to fill the defaults, so the manifest carries every field it means.
 */
function crdManifest(manifest: object): object {
  return { ...manifest, apiVersion: "crd.projectcalico.org/v1" };
}

/**
 * The most commands one write sends, one after the other with no renewal of the Lease between them: the backend's
 * (calico-config, then calico-node). The Lease's duration covers them (src/migrate/lease-duration.ts).
 */
export const MOST_COMMANDS_PER_WRITE = 2;

export function commandsFor(write: Write, c: WriteContext): Command[] {
  const kubectl = kubectlBase(c.kubectlPath, c.kubeconfig);
  const calico = (kind: string, crd: string, name: string, spec: object): Command => ({
    what: `${kind} ${name} spec ${JSON.stringify(spec)}`,
    argv:
      c.client === "calicoctl"
        ? [c.calicoctlPath, "patch", kind, name, "-p", JSON.stringify({ spec })]
        : [...kubectl, "patch", crd, name, "--type", "merge", "-p", JSON.stringify({ spec })],
    ...(c.client === "kubectl" ? { needs: { verb: "patch", resource: crd, name } } : {}),
  });
  /** A patch on an object in kube-system: the ConfigMap calico-config or the DaemonSet calico-node. */
  const kubeSystem = (
    what: string,
    kind: "configmap" | "daemonset",
    name: string,
    type: "merge" | "strategic",
    patch: object,
  ): Command => ({
    what,
    needs: {
      verb: "patch",
      resource: kind === "configmap" ? "configmaps" : "daemonsets.apps",
      name,
      namespace: "kube-system",
    },
    argv: [
      ...kubectl,
      "--namespace",
      "kube-system",
      "patch",
      kind,
      name,
      "--type",
      type,
      "-p",
      JSON.stringify(patch),
    ],
  });
  switch (write.kind) {
    case "felix":
      return [
        calico(
          "felixconfiguration",
          "felixconfigurations.crd.projectcalico.org",
          "default",
          write.set,
        ),
      ];
    case "pool":
      return [calico("ippool", "ippools.crd.projectcalico.org", write.pool, write.set)];
    case "tunnelPool": {
      const manifest = tunnelPoolManifest(write.pool, write.cidr, write.nodeSelector, write.encap);
      return [
        {
          what: `IPPool ${write.pool} created: ${JSON.stringify(manifest)}`,
          argv:
            c.client === "calicoctl"
              ? [c.calicoctlPath, "create", "-f", "-"]
              : [...kubectl, "create", "-f", "-"],
          stdin: JSON.stringify(c.client === "calicoctl" ? manifest : crdManifest(manifest)),
          ...(c.client === "kubectl"
            ? { needs: { verb: "create", resource: "ippools.crd.projectcalico.org" } }
            : {}),
        },
      ];
    }
    case "rollout": {
      const patch = {
        metadata: {
          annotations: { [HELD_MAX_UNAVAILABLE]: write.hold ? heldValue(write.from) : null },
        },
        spec: { updateStrategy: { rollingUpdate: { maxUnavailable: write.maxUnavailable } } },
      };
      return [
        kubeSystem(
          `${CALICO_NODE_DAEMONSET} maxUnavailable ${JSON.stringify(write.maxUnavailable)}${write.hold ? ` (was ${JSON.stringify(write.from)}, kept in annotation ${HELD_MAX_UNAVAILABLE})` : ""}`,
          "daemonset",
          "calico-node",
          "strategic",
          patch,
        ),
      ];
    }
    case "backend": {
      const configMap = configMapPatch(write.backend, write.applied);
      return [
        kubeSystem(
          `ConfigMap kube-system/calico-config data ${JSON.stringify(configMap.data)}`,
          "configmap",
          "calico-config",
          "merge",
          configMap,
        ),
        kubeSystem(
          `${CALICO_NODE_DAEMONSET} pod template for backend ${write.backend}`,
          "daemonset",
          "calico-node",
          "strategic",
          daemonSetPatch(write.backend, c.vxlanVni, c.vxlanPort, write.applied),
        ),
      ];
    }
  }
}
