// Calico's own rules about pools and routing, as data and small pure predicates.
// Sources: ../shared/reference/calico.md (libcalico-go clientv3/ippool.go, validator/v3/validator.go,
// felix/calc/encapsulation_resolver.go, node/pkg/allocateip).

import type { Backend, EncapMode, IpVersion } from "./model.js";
import { isOn } from "./model.js";

/** The block size range Calico accepts, per IP version. */
export const BLOCK_SIZE_RANGE: Record<IpVersion, { min: number; max: number; default: number }> = {
  4: { min: 20, max: 32, default: 26 },
  6: { min: 116, max: 128, default: 122 },
};

/** Pool fields Calico refuses to modify, with the message its client prints. */
export const IMMUTABLE_POOL_FIELDS = {
  cidr: "IPPool CIDR cannot be modified",
  blockSize: "IPPool BlockSize cannot be modified",
} as const;

export const CALICO_MESSAGES = {
  bothEncapsulations: "Cannot enable both VXLAN and IPIP on the same IPPool",
  ipipOnIpv6: "IPIP is not supported on an IPv6 IP pool",
} as const;

/** Backends that run BIRD, which distributes the routes IPIP depends on. */
export const BACKENDS_WITH_BGP: readonly Backend[] = ["bird"];

/** Encapsulation overhead in bytes, for the MTU warning. */
export const ENCAP_OVERHEAD = { ipip: 20, vxlan4: 50, vxlan6: 70 } as const;

export interface PoolModes {
  ipVersion: IpVersion;
  ipipMode: EncapMode;
  vxlanMode: EncapMode;
}

/** Calico's validation of a pool's encapsulation, in Calico's words; empty when valid. */
export function poolModeViolations(pool: PoolModes): string[] {
  const violations: string[] = [];
  if (isOn(pool.ipipMode) && isOn(pool.vxlanMode))
    violations.push(CALICO_MESSAGES.bothEncapsulations);
  if (pool.ipVersion === 6 && isOn(pool.ipipMode)) violations.push(CALICO_MESSAGES.ipipOnIpv6);
  return violations;
}

/** Whether the backend distributes the routes IPIP needs (BIRD). */
export function backendRunsBgp(backend: string | null): boolean {
  // calico-node's templates treat an unset backend as bird (Kubespray before 2.19).
  return backend === null || (BACKENDS_WITH_BGP as readonly string[]).includes(backend);
}

/** Felix's parsing of a boolean environment value; undefined when Felix would ignore it. */
export function parseFelixBool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (["true", "1", "yes", "y", "t"].includes(v)) return true;
  if (["false", "0", "no", "n", "f"].includes(v)) return false;
  return undefined;
}

/** Whether a Calico version ("v3.31.0") is at least major.minor; `unknown` when it is null or unreadable. */
export function calicoAtLeast(
  calicoVersion: string | null,
  major: number,
  minor: number,
  unknown: boolean,
): boolean {
  const m = calicoVersion === null ? null : /^v?(\d+)\.(\d+)/.exec(calicoVersion.trim());
  if (!m) return unknown;
  const [got, gotMinor] = [Number(m[1]), Number(m[2])];
  return got > major || (got === major && gotMinor >= minor);
}

/** Calico >= 3.23 derives unset Felix encapsulation flags from the pools; older Felix defaults them to false. */
export function derivesFromPools(calicoVersion: string | null): boolean {
  return calicoAtLeast(calicoVersion, 3, 23, true);
}
