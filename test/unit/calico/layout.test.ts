// src/calico's three parts, read from the sources: shared (the Calico model and rules both fronts use), check (the
// comparison with the inventory) and plan (the migration's planner). Each part imports only what it may, nothing in
// src/calico does I/O (no Node built-in, no package), and no import circle runs through it.

import { expect } from "chai";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { REPO } from "../../support/ansible.js";

const ROOT = join(REPO, "src", "calico");

/** What each part may import from src/calico (and the check's result type and the options schema from outside). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  shared: ["shared"],
  plan: ["shared", "plan"],
  check: ["shared", "plan", "check"],
};
const OUTSIDE_ALLOWED = ["schemas/calico_pool_check.options.json", "src/generated/"];

interface Source {
  file: string;
  imports: string[];
}

function sources(): Source[] {
  return readdirSync(ROOT, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => {
      const text = readFileSync(join(ROOT, f), "utf8");
      const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)].map(
        (m) => m[1] ?? "",
      );
      return {
        file: f,
        imports: specs.map((s) =>
          s.startsWith(".") ? normalize(join(dirname(f), s)).replace(/\.js$/, ".ts") : s,
        ),
      };
    });
}

/** The import circles among the files, each as a path; [] when there is none. */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (n: string): void => {
    if (state.get(n) === "done") return;
    if (state.get(n) === "open") {
      found.push([...path.slice(path.indexOf(n)), n]);
      return;
    }
    state.set(n, "open");
    path.push(n);
    for (const d of graph.get(n) ?? []) if (graph.has(d)) visit(d);
    path.pop();
    state.set(n, "done");
  };
  for (const n of graph.keys()) visit(n);
  return found;
}

describe("src/calico's layout", () => {
  const all = sources();

  it("has its three parts and nothing beside them", () => {
    const parts = new Set(all.map((s) => s.file.split("/")[0]));
    expect([...parts].sort()).to.deep.equal(["check", "plan", "shared"]);
    expect(all.length).to.be.greaterThan(20);
  });

  it("imports within the parts each may use, and nothing that does I/O", () => {
    const wrong = all.flatMap(({ file, imports }) => {
      const part = file.split("/")[0] ?? "";
      return imports
        .filter((i) => {
          if (!i.startsWith("..")) {
            const inCalico = !i.includes(":") && !i.startsWith("@") && i.includes("/");
            return !(inCalico && (MAY_IMPORT[part] ?? []).includes(i.split("/")[0] ?? ""));
          }
          const fromRepo = relative(REPO, join(ROOT, i));
          return !OUTSIDE_ALLOWED.some((a) => fromRepo.startsWith(a.replace(/\.js$/, "")));
        })
        .map((i) => `${file} imports ${i}`);
    });
    expect(wrong).to.deep.equal([]);
  });

  it("has no import circle", () => {
    const graph = new Map(all.map((s) => [s.file, s.imports]));
    expect(circles(graph)).to.deep.equal([]);
  });

  it("finds a circle where there is one (the check above can fail)", () => {
    const graph = new Map([
      ["shared/model.ts", ["shared/rollout.ts"]],
      ["shared/rollout.ts", ["shared/observation.ts"]],
      ["shared/observation.ts", ["shared/model.ts"]],
    ]);
    expect(circles(graph)).to.deep.equal([
      ["shared/model.ts", "shared/rollout.ts", "shared/observation.ts", "shared/model.ts"],
    ]);
  });
});
