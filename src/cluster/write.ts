// The writes calico_encap_migrate makes, as argv arrays: through calicoctl (validated by Calico) when that is
// the client, else kubectl merge patches on the crd.projectcalico.org objects (the planner has already
// checked Calico's rules). Each touches only the fields it owns.

import type { Backend } from "../calico/model.js";
import type { Write } from "../calico/plan.js";
import { kubectlBase } from "./read-kubectl.js";
import { tunnelPoolManifest } from "../calico/tunnel-pool.js";
import { CALICO_NODE_DAEMONSET, HELD_MAX_UNAVAILABLE, heldValue } from "../calico/rollout.js";

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
}

const CALICO_NODE_BIN = "/bin/calico-node";

/** Kubespray's calico-node template per backend: bird probes only for bird, FELIX_VXLANVNI/PORT only for vxlan. */
export function daemonSetPatch(backend: Backend, vni: number, port: number): object {
  const bird = backend === "bird";
  const env =
    backend === "vxlan"
      ? [
          { name: "FELIX_VXLANVNI", value: String(vni) },
          { name: "FELIX_VXLANPORT", value: String(port) },
        ]
      : [
          { name: "FELIX_VXLANVNI", $patch: "delete" },
          { name: "FELIX_VXLANPORT", $patch: "delete" },
        ];
  return {
    spec: {
      template: {
        spec: {
          containers: [
            {
              name: "calico-node",
              livenessProbe: {
                exec: {
                  command: [CALICO_NODE_BIN, "-felix-live", ...(bird ? ["-bird-live"] : [])],
                },
              },
              readinessProbe: {
                exec: {
                  command: [CALICO_NODE_BIN, ...(bird ? ["-bird-ready"] : []), "-felix-ready"],
                },
              },
              env,
            },
          ],
        },
      },
    },
  };
}

/**
 * A projectcalico.org/v3 manifest as the crd.projectcalico.org object kubectl creates: the CRD's apiVersion, and
 * kubectl has no calicoctl to fill the defaults, so the manifest carries every field it means.
 */
function crdManifest(manifest: object): object {
  return { ...manifest, apiVersion: "crd.projectcalico.org/v1" };
}

export function commandsFor(write: Write, c: WriteContext): Command[] {
  const kubectl = kubectlBase(c.kubectlPath, c.kubeconfig);
  const calico = (kind: string, crd: string, name: string, spec: object): Command => ({
    what: `${kind} ${name} spec ${JSON.stringify(spec)}`,
    argv:
      c.client === "calicoctl"
        ? [c.calicoctlPath, "patch", kind, name, "-p", JSON.stringify({ spec })]
        : [...kubectl, "patch", crd, name, "--type", "merge", "-p", JSON.stringify({ spec })],
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
      const manifest = tunnelPoolManifest(write.pool, write.cidr, write.nodeSelector);
      return [
        {
          what: `IPPool ${write.pool} created: ${JSON.stringify(manifest)}`,
          argv:
            c.client === "calicoctl"
              ? [c.calicoctlPath, "create", "-f", "-"]
              : [...kubectl, "create", "-f", "-"],
          stdin: JSON.stringify(c.client === "calicoctl" ? manifest : crdManifest(manifest)),
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
      const data = {
        calico_backend: write.backend,
        cluster_type: write.backend === "bird" ? "kubespray,bgp" : "kubespray",
      };
      return [
        kubeSystem(
          `ConfigMap kube-system/calico-config data ${JSON.stringify(data)}`,
          "configmap",
          "calico-config",
          "merge",
          { data },
        ),
        kubeSystem(
          `${CALICO_NODE_DAEMONSET} pod template for backend ${write.backend}`,
          "daemonset",
          "calico-node",
          "strategic",
          daemonSetPatch(write.backend, c.vxlanVni, c.vxlanPort),
        ),
      ];
    }
  }
}
