// `calico-encap check|migrate --help`, written from the module's options schema: its short
// description, each option's description, default and Kubespray variable. Pure.

import { bareFallback } from "../calico/shared/kubespray-fallback.js";
import type { JsonSchemaObject } from "../protocol/json-schema.js";
import type { HumanMode, OptionFlag } from "./flags.js";
import { FRONT_FLAGS, MODULE_OF, valueText } from "./flags.js";

const WIDTH = 80;
const INDENT = "        ";

/** Words of text wrapped to WIDTH, each line indented. */
export function wrap(text: string, indent = INDENT, width = WIDTH): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines;
}

function defaultText(f: OptionFlag): string {
  if (f.default === undefined || f.default === null) return "";
  if (f.type === "bool") return f.default ? f.flag : `--no-${f.flag.slice(2)}`;
  return valueText(f.default);
}

/** The variables --vars reads an option from: "calico_pool_cidr, else kube_pods_subnet", "{bin_dir}/kubectl". */
function varsText(f: OptionFlag): string {
  const fallback =
    f.kubesprayFallback && (bareFallback(f.kubesprayFallback) ?? f.kubesprayFallback);
  const names = [f.kubesprayVariable, fallback].filter(Boolean);
  return names.length ? `--vars: ${names.join(", else ")}` : "";
}

function optionEntry(f: OptionFlag): string[] {
  const names =
    f.type === "bool"
      ? `${f.flag}, --no-${f.flag.slice(2)}`
      : `${[f.flag, ...f.aliases].join(", ")} ${f.metavar}`;
  const notes = [defaultText(f) ? `default: ${defaultText(f)}` : "", varsText(f)].filter(Boolean);
  const text = notes.length ? `${f.description} [${notes.join("; ")}]` : f.description;
  return [`  ${names}`, ...wrap(text)];
}

const EXAMPLES: Record<HumanMode, string[]> = {
  check: [
    "calico-encap check --vars inventory/mycluster/group_vars/k8s_cluster/k8s-net-calico.yml",
    "calico-encap check --ipip-mode Always --vxlan-mode Never --network-backend bird \\",
    "    --kubeconfig ~/.kube/config --calicoctl /usr/local/bin/calicoctl.sh",
  ],
  migrate: [
    "calico-encap migrate --ipip-mode Never --vxlan-mode Always --network-backend vxlan --check --diff",
    "calico-encap migrate --vars inventory/mycluster/group_vars/k8s_cluster/k8s-net-calico.yml",
  ],
};

export function helpText(
  mode: HumanMode,
  schema: JsonSchemaObject,
  flags: readonly OptionFlag[],
): string {
  const doc = schema["x-ansible"];
  const summary = doc?.short_description ?? schema.description ?? "";
  const description = doc?.description;
  const first = Array.isArray(description) ? description[0] : description;
  const lines = [
    `usage: calico-encap ${mode} [flags]`,
    "",
    ...wrap(`${summary} (the ${MODULE_OF[mode]} module, outside Ansible).`, ""),
    ...(first ? ["", ...wrap(first, "")] : []),
    "",
    "Options (a flag overrides --vars, which overrides the default):",
    ...flags.flatMap(optionEntry),
    "",
    "Flags:",
    ...FRONT_FLAGS.filter((f) => f.modes.includes(mode)).flatMap((f) => [
      `  ${f.flag}${f.metavar ? ` ${f.metavar}` : ""}`,
      ...wrap(f.description),
    ]),
    "",
    "Exit codes: 0 done or nothing to change, 1 blocked or failed, 2 usage error.",
    "",
    "Examples:",
    ...EXAMPLES[mode].map((e) => `  ${e}`),
  ];
  return lines.join("\n") + "\n";
}
