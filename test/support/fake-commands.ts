// Stand-ins for calicoctl.sh and kubectl in protocol tests (the lab runs the real ones): shell scripts that
// answer each argv with a recorded stdout, stderr and exit code, and log every call.

import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { calicoctlRead } from "../../src/cluster/read-calicoctl.js";

export interface Answer {
  stdout?: string;
  stderr?: string;
  rc?: number;
  /** Seconds to sleep first (for timeouts). */
  sleep?: number;
  /** The stdin the command must be given: any other fails it (rc 3, "stdin differs"). */
  stdin?: string;
}

/** Answers keyed by the argv after the program name, joined with spaces; "*" answers anything else. */
export type Script = Record<string, Answer>;

export interface FakeTools {
  dir: string;
  calicoctl: string;
  kubectl: string;
  log: string;
}

function writeScript(dir: string, name: string, script: Script, log: string): string {
  const dataDir = join(dir, `${name}.d`);
  mkdirSync(dataDir, { recursive: true });
  const cases: string[] = [];
  Object.entries(script).forEach(([args, answer], i) => {
    writeFileSync(join(dataDir, `${i}.out`), answer.stdout ?? "");
    writeFileSync(join(dataDir, `${i}.err`), answer.stderr ?? "");
    const pattern = args === "*" ? "*" : `'${args.replace(/'/g, `'\\''`)}'`;
    let check = "";
    if (answer.stdin !== undefined) {
      writeFileSync(join(dataDir, `${i}.in`), answer.stdin);
      check = `cat | cmp -s - "$d/${i}.in" || { echo "${name} stand-in: stdin differs from ${i}.in for: $*" >&2; exit 3; }; `;
    }
    cases.push(
      `  ${pattern}) ${check}${answer.sleep ? `sleep ${answer.sleep}; ` : ""}cat "$d/${i}.out"; cat "$d/${i}.err" >&2; exit ${answer.rc ?? 0} ;;`,
    );
  });
  const path = join(dir, name);
  writeFileSync(
    path,
    [
      "#!/bin/sh",
      `# Test stand-in for ${name}: replays recorded answers.`,
      `d='${dataDir}'`,
      `echo "${name} $*" >> '${log}'`,
      'case "$*" in',
      ...cases,
      `  *) echo "${name} stand-in: no answer for: $*" >&2; exit 3 ;;`,
      "esac",
      "",
    ].join("\n"),
  );
  chmodSync(path, 0o755);
  return path;
}

export function fakeTools(calicoctl: Script, kubectl: Script): FakeTools {
  const dir = mkdtempSync(join(tmpdir(), "calico-encap-fake-"));
  const log = join(dir, "calls.log");
  writeFileSync(log, "");
  return {
    dir,
    log,
    calicoctl: writeScript(dir, "calicoctl.sh", calicoctl, log),
    kubectl: writeScript(dir, "kubectl", kubectl, log),
  };
}

/** The calicoctl argv the readers use (src/cluster/read-calicoctl.ts), after the program; its stdin is CALICOCTL_REQUEST. */
const READ = calicoctlRead("calicoctl.sh", 1);
export const CALICOCTL_READ = READ.argv.slice(1).join(" ");
export const CALICOCTL_REQUEST = READ.stdin ?? "";

/** An answer to the calicoctl read that checks its request. */
export function calicoctlAnswer(answer: Omit<Answer, "stdin">): Script {
  return { [CALICOCTL_READ]: { ...answer, stdin: CALICOCTL_REQUEST } };
}

/** The kubectl argv the readers use, after --kubeconfig <file>. */
export const KUBECTL_CALICO_CRDS =
  "get ippools.crd.projectcalico.org,felixconfigurations.crd.projectcalico.org,clusterinformations.crd.projectcalico.org -o json";
export const KUBECTL_KUBESPRAY_OBJECTS =
  "--namespace kube-system get configmap/calico-config daemonset/calico-node --ignore-not-found -o json";
