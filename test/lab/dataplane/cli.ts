// node dist/test/lab/dataplane/cli.js apply SPEC.json [--prefix calab-]   program the namespaces from a spec
// node dist/test/lab/dataplane/cli.js plan SPEC.json [--prefix calab-]    print what apply would run
// node dist/test/lab/dataplane/cli.js mesh vxlan|bgp NODES [UNDERLAY]     print a full-mesh spec
// The prefix defaults to $LAB_NETNS_PREFIX, else calab-.

import { readFileSync } from "node:fs";
import { applyDataplane, netnsExists, netnsOf, readNode } from "./apply.js";
import { meshSpec } from "./mesh.js";
import { planNode, validateSpec } from "./plan.js";
import type { DataplaneSpec } from "./spec.js";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const [cmd, a1, a2, a3] = process.argv.slice(2);
  const prefix = arg("--prefix") ?? process.env.LAB_NETNS_PREFIX ?? "calab-";
  if (cmd === "mesh" && (a1 === "vxlan" || a1 === "bgp")) {
    const spec = meshSpec({ kind: a1, nodes: Number(a2 ?? 3), underlay: a3 ?? "172.31.250" });
    process.stdout.write(JSON.stringify(spec, null, 2) + "\n");
    return;
  }
  if ((cmd === "apply" || cmd === "plan") && a1) {
    const spec = JSON.parse(readFileSync(a1, "utf8")) as DataplaneSpec;
    if (cmd === "apply") {
      const t0 = performance.now();
      await applyDataplane(spec, { netnsPrefix: prefix });
      process.stderr.write(`applied in ${(performance.now() - t0).toFixed(1)} ms\n`);
      return;
    }
    validateSpec(spec);
    for (const node of spec.nodes) {
      const ns = netnsOf(prefix, node.name);
      if (!netnsExists(ns)) continue;
      const plan = planNode(node, spec.vxlan, await readNode(ns));
      process.stdout.write(JSON.stringify({ node: node.name, netns: ns, ...plan }) + "\n");
    }
    return;
  }
  process.stderr.write(
    "usage: cli.js apply|plan SPEC.json [--prefix P] | mesh vxlan|bgp NODES [UNDERLAY]\n",
  );
  process.exitCode = 2;
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
