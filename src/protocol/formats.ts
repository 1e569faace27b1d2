/**
 * The string formats the option schemas use ("format" in schemas/): what each accepts, and how a value that is none
 * is described in the refusal ("value of pods_subnet must be <description>, got: ..."). Ajv checks them, at run time
 * (src/protocol/ajv.ts) and in the precompiled validators, which import this table (tools/standalone.ts).
 */
import { isNetwork } from "../calico/shared/cidr.js";

export interface OptionFormat {
  /** As Ajv's format definitions: the type checked, and the check. */
  type: "string";
  validate(value: string): boolean;
  /** What a value must be, after "must be". */
  description: string;
}

export const OPTION_FORMATS: Readonly<Record<string, OptionFormat>> = {
  "ipv4-cidr": {
    type: "string",
    validate: (v) => isNetwork(v, 4),
    description: "an IPv4 network in CIDR notation, such as 10.233.64.0/18",
  },
  "ipv6-cidr": {
    type: "string",
    validate: (v) => isNetwork(v, 6),
    description: "an IPv6 network in CIDR notation, such as fd85:ee78:d8a6:8607::1:0/112",
  },
  "ipv4-cidr-or-empty": {
    type: "string",
    validate: (v) => v === "" || isNetwork(v, 4),
    description: "empty or an IPv4 network in CIDR notation, such as 172.30.0.0/24",
  },
};

/** The description of a format the schemas use; the format's name for one this table lacks. */
export function formatDescription(format: string): string {
  return OPTION_FORMATS[format]?.description ?? `a string of format ${format}`;
}
