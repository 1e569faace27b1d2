// Scale measurement helper: adds Nodes node-<from>..node-<to> to a running lab, shaped like lab.sh's seed (address
// annotation, the pool's IPIP tunnel annotation, status addresses and capacity so the scheduler binds calico-node).
// lab.sh up stops at 200 nodes (its underlay is one /24); this goes beyond with addresses in 172.30.0.0/16.
//
//   LAB_STATE=... node dist/test/lab/standin/add-nodes.js FROM TO [ipip|vxlan|none]

import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Api } from "./apiserver.js";
import { formatIp, nthBlock, parseCidr } from "./ip.js";

async function main(): Promise<void> {
  const [fromS, toS, kind = "ipip"] = process.argv.slice(2);
  const from = Number(fromS);
  const to = Number(toS);
  if (!(from >= 1 && to >= from)) throw new Error("usage: add-nodes.js FROM TO [ipip|vxlan|none]");
  const state = resolve(process.env.LAB_STATE ?? ".lab");
  const env = Object.fromEntries(
    readFileSync(join(state, "env"), "utf8")
      .split("\n")
      .map((l) => /^export ([A-Z_0-9]+)=(.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1], m[2]]),
  ) as Record<string, string>;
  const api = new Api({
    url: env.LAB_APISERVER_URL ?? "",
    token: env.LAB_ADMIN_TOKEN ?? "",
    ca: readFileSync(join(state, "pki", "apiserver", "apiserver.crt"), "utf8"),
    maxSockets: 32,
  });
  const pool = parseCidr(process.env.POOL_CIDR ?? "10.233.64.0/18");
  const blockSize = Number(process.env.POOL_BLOCKSIZE ?? 24);
  const t0 = performance.now();
  const one = async (i: number): Promise<void> => {
    const name = `node-${i}`;
    const ip = `172.30.${(i >> 8) & 255}.${i & 255}`;
    const annotations: Record<string, string> = { "projectcalico.org/IPv4Address": `${ip}/16` };
    const block = pool ? nthBlock(pool, blockSize, i - 1) : null;
    if (block && kind === "ipip")
      annotations["projectcalico.org/IPv4IPIPTunnelAddr"] = formatIp(false, block.base);
    await api.call("POST", "/api/v1/nodes", {
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name,
        labels: {
          "kubernetes.io/hostname": name,
          "kubernetes.io/os": "linux",
          "kubernetes.io/arch": "amd64",
        },
        annotations,
      },
    });
    const res = { cpu: "2", memory: "4Gi", pods: "110" };
    await api.mergePatch(`/api/v1/nodes/${name}/status`, {
      status: {
        addresses: [
          { type: "InternalIP", address: ip },
          { type: "Hostname", address: name },
        ],
        capacity: res,
        allocatable: res,
      },
    });
  };
  const ids = Array.from({ length: to - from + 1 }, (_, k) => from + k);
  for (let k = 0; k < ids.length; k += 32) await Promise.all(ids.slice(k, k + 32).map(one));
  api.close();
  process.stdout.write(
    `added ${ids.length} nodes in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exit(1);
});
