// IPv4/IPv6 address arithmetic for the stand-in (bigint based, pure). Written for the stand-in alone: it must
// not share code with src/ (the stand-in is the referee the product is tested against).

export interface IpNet {
  v6: boolean;
  /** The network address as an integer. */
  base: bigint;
  prefix: number;
}

const BITS = (v6: boolean): number => (v6 ? 128 : 32);

export function parseIp(s: string): { v6: boolean; n: bigint } | null {
  if (s.includes(":")) return parseIp6(s);
  const parts = s.split(".");
  if (parts.length !== 4) return null;
  let n = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const v = Number(p);
    if (v > 255) return null;
    n = (n << 8n) | BigInt(v);
  }
  return { v6: false, n };
}

function parseIp6(s: string): { v6: boolean; n: bigint } | null {
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (h: string | undefined): string[] | null => {
    if (h === undefined || h === "") return [];
    const g = h.split(":");
    return g.every((x) => /^[0-9a-fA-F]{1,4}$/.test(x)) ? g : null;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (head === null || tail === null) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  let n = 0n;
  for (const g of all) n = (n << 16n) | BigInt(parseInt(g, 16));
  return { v6: true, n };
}

export function formatIp(v6: boolean, n: bigint): string {
  if (!v6) {
    return [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 255n)).join(".");
  }
  const g: number[] = [];
  for (let i = 7; i >= 0; i--) g.push(Number((n >> BigInt(i * 16)) & 0xffffn));
  // RFC 5952: compress the first longest run (>= 2) of zero groups.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (xs: number[]): string => xs.map((x) => x.toString(16)).join(":");
  if (best < 0) return hex(g);
  return `${hex(g.slice(0, best))}::${hex(g.slice(best + bestLen))}`;
}

export function parseCidr(s: string): IpNet | null {
  const [addr, len, extra] = s.split("/");
  if (addr === undefined || len === undefined || extra !== undefined || !/^\d+$/.test(len))
    return null;
  const ip = parseIp(addr);
  if (!ip) return null;
  const prefix = Number(len);
  if (prefix > BITS(ip.v6)) return null;
  const host = (1n << BigInt(BITS(ip.v6) - prefix)) - 1n;
  return { v6: ip.v6, base: ip.n & ~host, prefix };
}

export function contains(net: IpNet, ip: { v6: boolean; n: bigint }): boolean {
  if (net.v6 !== ip.v6) return false;
  const shift = BigInt(BITS(net.v6) - net.prefix);
  return ip.n >> shift === net.base >> shift;
}

/** The k-th (0-based) block of size blockSize inside a pool, or null when the pool has fewer blocks. */
export function nthBlock(pool: IpNet, blockSize: number, k: number): IpNet | null {
  if (blockSize < pool.prefix || blockSize > BITS(pool.v6) || k < 0) return null;
  const count = 1n << BigInt(blockSize - pool.prefix);
  if (BigInt(k) >= count) return null;
  return {
    v6: pool.v6,
    base: pool.base + BigInt(k) * (1n << BigInt(BITS(pool.v6) - blockSize)),
    prefix: blockSize,
  };
}

export function formatCidr(net: IpNet): string {
  return `${formatIp(net.v6, net.base)}/${net.prefix}`;
}
