// CIDR parsing and overlap for IPv4 and IPv6, as BigInt ranges. Pure.

export interface Cidr {
  version: 4 | 6;
  first: bigint;
  last: bigint;
  prefix: number;
}

function parseV4(addr: string): bigint | null {
  const parts = addr.split(".");
  if (parts.length !== 4) return null;
  let n = 0n;
  for (const p of parts) {
    // No leading zero: Go's net.ParseCIDR (calicoctl, Calico's validator) refuses "172.030.0.0" since Go 1.17.
    if (!/^(0|[1-9]\d{0,2})$/.test(p) || Number(p) > 255) return null;
    n = (n << 8n) | BigInt(p);
  }
  return n;
}

/** An IPv6 address, compressed or not, its last 32 bits written as IPv4 or not (::ffff:10.0.0.1), as Go reads it. */
function parseV6(addr: string): bigint | null {
  const halves = addr.split("::");
  if (halves.length > 2) return null;
  const groups = (s: string | undefined): string[] => (s ? s.split(":") : []);
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  // IPv4-embedded: the last word is an IPv4 address, two groups' worth.
  const last = (halves.length === 1 ? head : tail).at(-1) ?? "";
  let embedded: bigint | null = null;
  if (last.includes(".")) {
    embedded = parseV4(last);
    if (embedded === null) return null;
    (halves.length === 1 ? head : tail).pop();
  }
  const width = embedded === null ? 8 : 6;
  const missing = width - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...Array<string>(halves.length === 1 ? 0 : missing).fill("0"), ...tail];
  let n = 0n;
  for (const g of all) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
    n = (n << 16n) | BigInt(parseInt(g, 16));
  }
  return embedded === null ? n : (n << 32n) | embedded;
}

/** Parses "a.b.c.d/n" or an IPv6 CIDR; null when malformed. */
export function parseCidr(text: string): Cidr | null {
  const [addr, len, extra] = text.trim().split("/");
  if (addr === undefined || len === undefined || extra !== undefined || !/^\d{1,3}$/.test(len))
    return null;
  const version = addr.includes(":") ? 6 : 4;
  const bits = version === 4 ? 32 : 128;
  const prefix = Number(len);
  if (prefix > bits) return null;
  const value = version === 4 ? parseV4(addr) : parseV6(addr);
  if (value === null) return null;
  const hostBits = BigInt(bits - prefix);
  const first = (value >> hostBits) << hostBits;
  const last = first + (1n << hostBits) - 1n;
  return { version, first, last, prefix };
}

/** How a CIDR is described to whoever gave one that is none. */
export const CIDR_EXAMPLE = "such as 10.233.64.0/18 or fd85:ee78:d8a6:8607::1:0/112";

/** Whether the text is a network of that IP version as Go's net.ParseCIDR reads it: no blank around it. */
export function isNetwork(text: string, version: 4 | 6): boolean {
  return text === text.trim() && parseCidr(text)?.version === version;
}

/** A CIDR that could not be parsed where two networks are compared: never taken as "no overlap". */
export class MalformedCidr extends Error {
  constructor(
    readonly text: string,
    other: string,
  ) {
    super(
      `'${text}' is not an IPv4 or IPv6 network in CIDR notation (${CIDR_EXAMPLE}), so whether it overlaps ${other} cannot be told; correct it where it came from.`,
    );
  }
}

/** Whether two networks share an address, compared as numbers whatever their spelling; MalformedCidr for either one
 *  that is none. Networks of two IP versions never overlap. */
export function cidrsOverlap(a: string, b: string): boolean {
  const x = parseCidr(a);
  const y = parseCidr(b);
  if (!x) throw new MalformedCidr(a, b);
  if (!y) throw new MalformedCidr(b, a);
  if (x.version !== y.version) return false;
  return x.first <= y.last && y.first <= x.last;
}

/** Same network, whatever the spelling (e.g. IPv6 zero compression, host bits). */
export function sameCidr(a: string, b: string): boolean {
  const x = parseCidr(a);
  const y = parseCidr(b);
  if (!x || !y) return a.trim() === b.trim();
  return x.version === y.version && x.first === y.first && x.prefix === y.prefix;
}

/** An address ("10.0.0.1", "fd00::1") as the one-address CIDR that holds it; null when it is none. */
function hostCidr(address: string): Cidr | null {
  return parseCidr(`${address.trim()}/${address.includes(":") ? 128 : 32}`);
}

/** Whether the text is an IPv4 or IPv6 address (no prefix length). */
export function isAddress(text: string): boolean {
  return !text.includes("/") && hostCidr(text) !== null;
}

/**
 * Whether an address ("10.0.0.1", "fd00::1") lies in a CIDR. An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is the
 * IPv4 address it maps, as Go's net.IPNet.Contains takes it.
 */
export function containsAddress(cidr: string, address: string): boolean {
  const net = parseCidr(cidr);
  let host = hostCidr(address);
  if (net === null || host === null) return false;
  if (net.version === 4 && host.version === 6 && host.first >> 32n === 0xffffn) {
    const v4 = host.first & 0xffffffffn;
    host = { version: 4, first: v4, last: v4, prefix: 32 };
  }
  return net.version === host.version && net.first <= host.first && host.first <= net.last;
}

/** The network of a parsed CIDR in canonical text: host bits zeroed, IPv4 dotted, IPv6 compressed (RFC 5952). */
export function formatCidr(c: Cidr): string {
  if (c.version === 4)
    return `${[24n, 16n, 8n, 0n].map((sh) => String((c.first >> sh) & 255n)).join(".")}/${c.prefix}`;
  const groups = Array.from({ length: 8 }, (_, i) =>
    Number((c.first >> BigInt(112 - 16 * i)) & 0xffffn),
  );
  // The longest run of two or more zero groups, the first of equal ones, becomes "::".
  let best = { at: -1, len: 0 };
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.len && j - i >= 2) best = { at: i, len: j - i };
    i = j;
  }
  const hex = (g: number[]): string => g.map((x) => x.toString(16)).join(":");
  const text =
    best.at < 0
      ? hex(groups)
      : `${hex(groups.slice(0, best.at))}::${hex(groups.slice(best.at + best.len))}`;
  return `${text}/${c.prefix}`;
}

/** A CIDR as Calico would store it ("172.30.0.7/24" -> "172.30.0.0/24"); null when it is none. */
export function canonicalCidr(text: string): string | null {
  const c = parseCidr(text);
  return c ? formatCidr(c) : null;
}

export function ipVersionOf(cidr: string): 4 | 6 {
  return cidr.includes(":") ? 6 : 4;
}
