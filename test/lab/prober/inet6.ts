// IPv6 addresses as the kernel's /proc files write them (pure; the prober agent reads /proc/net/if_inet6).

/** An IPv6 address as /proc/net/if_inet6 writes it: 32 hex digits, no colons. */
export function hex6(address: string): string {
  const [head = "", tail] = address.toLowerCase().split("::");
  const groups = (part: string): string[] => (part === "" ? [] : part.split(":"));
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const zeros = Array<string>(Math.max(0, 8 - h.length - t.length)).fill("0");
  return [...h, ...zeros, ...t].map((g) => g.padStart(4, "0")).join("");
}
