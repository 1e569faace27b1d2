// The human front (stub, to be written): calico-encap check|migrate with flags.

export function runHuman(mode: "check" | "migrate", args: string[]): Promise<number> {
  void args;
  process.stderr.write(`calico-encap ${mode}: not built yet\n`);
  return Promise.resolve(2);
}
