// The files a lab node has where a calico-node image would have them: a bin folder (calico-node, Debian's bird,
// birdc, bird6 and birdc6, and runit's `sv` for confd's reload_cmd), confd's templates under /etc/calico/confd, and the CNI plugin's
// kubeconfig. Calico's confd templates are read at run time from the Calico module in the Go module cache (never
// copied into git) with ONE change, made by stripKrtTunnel: see there.

import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

/**
 * THE lab's one substitution in the data path. `krt_tunnel` (the attribute that makes BIRD install a route through
 * tunl0) exists only in Calico's BIRD fork, and this kernel has no ipip device: Debian's bird 1.6.8 rejects it
 * ("You may set only variables."). Without it BIRD installs the same route via the peer's address, which on the
 * lab's one shared L2 underlay is the route without the IP-in-IP header. For CrossSubnet the template chooses
 * between `krt_tunnel = ""` (same subnet) and the tunnel; with the attribute gone the choice goes too, and every
 * route is the same-subnet one, which is what CrossSubnet does between the lab's nodes (one subnet) anyway.
 * Calico fact it stands for: bird_ipam.cfg.template exports an IPIP pool's routes to the kernel with
 * krt_tunnel = "tunl0" (../../../shared/reference/real-calico-node.md, "BIRD").
 */
export function stripKrtTunnel(template: string): string {
  const out: string[] = [];
  for (const line of template.split("\n")) {
    if (line.includes("krt_tunnel")) continue;
    if (/^\s*if defined\(bgp_next_hop\) && \( bgp_next_hop ~ /.test(line)) continue;
    if (/^\s*else\s*$/.test(line)) continue;
    out.push(line);
  }
  return out.join("\n");
}

/** confd's templates and conf.d from Calico's module, into <etcCalico>/confd, with stripKrtTunnel applied. */
export function installConfd(calicoModuleDir: string, etcCalico: string): void {
  const src = join(calicoModuleDir, "confd", "etc", "calico", "confd");
  if (!existsSync(src))
    throw new Error(
      `confd templates not found in ${src} (go mod download in test/lab/go/calico-node)`,
    );
  const dst = join(etcCalico, "confd");
  rmSync(join(dst, "templates"), { recursive: true, force: true });
  rmSync(join(dst, "conf.d"), { recursive: true, force: true });
  for (const sub of ["templates", "conf.d"]) {
    mkdirSync(join(dst, sub), { recursive: true });
    for (const f of readdirSync(join(src, sub))) {
      const text = readFileSync(join(src, sub, f), "utf8");
      writeFileSync(join(dst, sub, f), f.endsWith(".template") ? stripKrtTunnel(text) : text);
    }
  }
  mkdirSync(join(dst, "config"), { recursive: true });
}

/**
 * runit's `sv` as calico-node uses it: confd's reload_cmd (`sv hup bird`, `sv hup bird6`) and the -bird-live / -felix-live probes
 * (`sv status /etc/service/enabled/<service>`, "run: ..." when up). It reads the pid the lab's kubelet recorded in
 * /var/run/calico/runit/<service>.pid.
 */
const SV = `#!/bin/sh
# runit's sv for the lab node (written by test/lab/kubelet): sv hup|term|kill|status SERVICE
# SERVICE may be a name or a service folder (/etc/service/enabled/NAME, as calico-node's -bird-live asks).
name=$(basename "$2")
pid=$(cat "/var/run/calico/runit/$name.pid" 2>/dev/null)
if [ "$1" = status ]; then
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then echo "run: $2: (pid $pid)"; else echo "down: $2"; fi
  exit 0
fi
case "$1" in hup) sig=HUP ;; term|down) sig=TERM ;; kill) sig=KILL ;; *) echo "sv: $1: not supported in the lab" >&2; exit 1 ;; esac
[ -n "$pid" ] || { echo "sv: $name: not running" >&2; exit 1; }
kill -s "$sig" "$pid"
`;

export function installBin(binDir: string, labBin: string): void {
  mkdirSync(binDir, { recursive: true });
  const links: [string, string][] = [
    ["calico-node", join(labBin, "calico-node")],
    ["calicoctl", join(labBin, "calicoctl")],
    ["bird", "/usr/sbin/bird"],
    ["birdc", "/usr/sbin/birdc"],
    ["bird6", "/usr/sbin/bird6"],
    ["birdc6", "/usr/sbin/birdc6"],
  ];
  for (const [name, target] of links) {
    rmSync(join(binDir, name), { force: true });
    symlinkSync(target, join(binDir, name));
  }
  writeFileSync(join(binDir, "sv"), SV);
  chmodSync(join(binDir, "sv"), 0o755);
}

/**
 * The CNI plugins as kubelet finds them in /opt/cni/bin: calico and calico-ipam are one binary
 * (cni-plugin/cmd/calico), which picks the plugin by the name it was started as.
 */
export function installCniBin(cniBin: string, labBin: string): void {
  mkdirSync(cniBin, { recursive: true });
  for (const name of ["calico", "calico-ipam"]) {
    rmSync(join(cniBin, name), { force: true });
    symlinkSync(join(labBin, "calico-cni"), join(cniBin, name));
  }
}
