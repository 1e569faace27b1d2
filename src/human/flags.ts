// The human front's flags, derived from a module's options schema: option pool_blocksize is
// --pool-blocksize N, a boolean nat_outgoing is --nat-outgoing / --no-nat-outgoing. Pure.

import type { AnsibleType } from "../protocol/coerce.js";
import type { JsonSchemaObject } from "../protocol/json-schema.js";
import { optionSpecs } from "../protocol/option-spec.js";

export type HumanMode = "check" | "migrate";

/** The module each command runs. */
export const MODULE_OF: Record<HumanMode, string> = {
  check: "calico_pool_check",
  migrate: "calico_encap_migrate",
};

/** Short names for the options a person types most (the long form works too). */
const SHORT_ALIASES: Record<string, string> = {
  calicoctl_path: "--calicoctl",
  kubectl_path: "--kubectl",
};

export interface OptionFlag {
  option: string;
  /** --pool-blocksize */
  flag: string;
  /** Other spellings: --calicoctl for calicoctl_path. */
  aliases: string[];
  type: AnsibleType;
  /** The schema's enum, when it has one. */
  choices: readonly unknown[] | null;
  /** What the value looks like in --help: N, {Always,CrossSubnet,Never}, PATH. */
  metavar: string;
  description: string;
  default: unknown;
  kubesprayVariable: string | null;
  /** Where Kubespray takes the value from when that variable is undefined (x-kubespray-fallback). */
  kubesprayFallback: string | null;
}

/** --pool-blocksize for pool_blocksize. */
export function flagName(option: string): string {
  return `--${option.replace(/_/g, "-")}`;
}

function metavarOf(option: string, type: AnsibleType, choices: readonly unknown[] | null): string {
  if (choices) return `{${choices.map(String).join(",")}}`;
  if (type === "int" || type === "float") return "N";
  const last =
    option
      .replace(/_ipv6$/, "")
      .split("_")
      .pop() ?? option;
  if (type === "list") return `${last.toUpperCase()}[,...]`;
  return last.toUpperCase();
}

/** One flag per option of the schema, in schema order. */
export function optionFlags(schema: JsonSchemaObject): OptionFlag[] {
  return optionSpecs(schema).map((spec) => {
    const choices = Array.isArray(spec.schema.enum) ? spec.schema.enum : null;
    const alias = SHORT_ALIASES[spec.name];
    return {
      option: spec.name,
      flag: flagName(spec.name),
      aliases: alias ? [alias] : [],
      type: spec.type,
      choices,
      metavar: metavarOf(spec.name, spec.type, choices),
      description: spec.schema.description ?? "",
      default: spec.default,
      kubesprayVariable: spec.schema["x-kubespray-variable"] ?? null,
      kubesprayFallback: spec.schema["x-kubespray-fallback"] ?? null,
    };
  });
}

/** The flags of the front itself (not options of the module), with the commands that take them. */
export interface FrontFlag {
  flag: string;
  metavar: string | null;
  modes: readonly HumanMode[];
  description: string;
}

export const FRONT_FLAGS: readonly FrontFlag[] = [
  {
    flag: "--vars",
    metavar: "FILE",
    modes: ["check", "migrate"],
    description:
      "A Kubespray group_vars YAML file (e.g. inventory/mycluster/group_vars/k8s_cluster/k8s-net-calico.yml). Its variables set the options above by their Kubespray names; flags override it. May be given more than once: later files override earlier ones.",
  },
  {
    flag: "--check",
    metavar: null,
    modes: ["migrate"],
    description: "Print the plan and write nothing (Ansible's check mode).",
  },
  {
    flag: "--diff",
    metavar: null,
    modes: ["migrate"],
    description: "Show before and after of every object written or to be written.",
  },
  {
    flag: "--json",
    metavar: null,
    modes: ["check", "migrate"],
    description:
      "Print exactly the module's result JSON (as Ansible receives it) and nothing else.",
  },
  {
    flag: "-v, -vv, -vvv",
    metavar: null,
    modes: ["check", "migrate"],
    description: "More detail: every log line of the module (as ansible-playbook -v..-vvv).",
  },
  {
    flag: "-h, --help",
    metavar: null,
    modes: ["check", "migrate"],
    description: "This help.",
  },
];

/** A value as typed on a command line: lists comma-separated, objects as JSON. */
export function valueText(value: unknown): string {
  if (Array.isArray(value)) return value.map(valueText).join(",");
  if (value !== null && typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Shell-safe rendering of one word of a suggested command. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The flags that give these option values (for a command to suggest), short aliases preferred. */
export function flagsFor(values: Record<string, unknown>, flags: readonly OptionFlag[]): string[] {
  const byOption = new Map(flags.map((f) => [f.option, f]));
  const words: string[] = [];
  for (const [option, value] of Object.entries(values)) {
    const f = byOption.get(option);
    if (f === undefined || value === null || value === undefined) continue;
    const name = f.aliases[0] ?? f.flag;
    if (f.type === "bool") words.push(value === true ? f.flag : `--no-${f.flag.slice(2)}`);
    else if (!Array.isArray(value) || value.length) words.push(name, shellWord(valueText(value)));
  }
  return words;
}
