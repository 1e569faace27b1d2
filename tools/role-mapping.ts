/**
 * The calico_encap role's mapping from Kubespray's variables to the modules' options, read from the one place it
 * is written (ansible/roles/calico_encap/vars/main.yml, with the role's own defaults from defaults/main.yml), and
 * the table made from it. `node dist/tools/role-mapping.js` prints the table; a unit test keeps docs/reference.md's
 * copy, the task files, the argument specs and the schemas in step with it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parse } from "yaml";
import { loadModuleSchemas } from "./module-schemas.js";
import { repoRoot } from "./paths.js";

export const ROLE_DIR = "ansible/roles/calico_encap";

export interface MappingRow {
  /** The module option. */
  option: string;
  /** The variable the option is read from, then the variables it falls back to. */
  variables: string[];
  /**
   * The literal used when every variable is undefined; undefined when a role default (defaults/main.yml) or the
   * fork's own default applies.
   */
  fallback?: unknown;
  /** A default that differs between Kubespray releases: the fork's own, read from its tree (tasks/fork_defaults.yml). */
  forkDefault?: boolean;
  /**
   * A fact of the fork's tree, not of a variable: the lookup's answer of that name (calico_encap_fork.NAME), the
   * fallback applying where no tree was read.
   */
  forkFact?: string;
  /** The role default's text, for the role's own variables. */
  roleDefault?: unknown;
  /** The option is the negation of the variable (fail_on_mismatch = not ignore_assert_errors). */
  negated: boolean;
  /** The modules that take the option. */
  modules: string[];
}

interface Parsed {
  variables: string[];
  fallback?: unknown;
  /** `default(calico_encap_defaults.NAME)`: the fork's own default of NAME. */
  forkDefault?: string;
  /** `calico_encap_fork.NAME | default(...)`: a fact the lookup read from the fork's tree. */
  forkFact?: string;
  negated: boolean;
}

/** vars/main.yml's list of the variables whose defaults differ between Kubespray releases. */
export const RELEASE_VARIABLES_VAR = "calico_encap_release_variables";
const FORK_DEFAULT = /^calico_encap_defaults\.([a-z_]\w*)$/;
const FORK_FACT = /^calico_encap_fork\.([a-z_]\w*) \| default\((.+)\)$/;

const LITERALS = new Set(["true", "false", "null"]);

/** One Jinja expression of vars/main.yml: `var | default(...)`, `not (... | bool)`, a variable or a literal. */
function parseExpression(expr: string): Parsed {
  const negated = /^not \((.+) \| bool\)$/.exec(expr);
  if (negated?.[1]) return { ...parseExpression(negated[1]), negated: true };
  const fact = FORK_FACT.exec(expr);
  if (fact?.[1] && fact[2])
    return {
      variables: [],
      forkFact: fact[1],
      fallback: parse(fact[2]) as unknown,
      negated: false,
    };
  const defaulted = /^([a-z_]\w*) \| default\((.+)\)$/.exec(expr);
  if (defaulted?.[1] && defaulted[2]) {
    const inner = parseExpression(defaulted[2]);
    return { ...inner, variables: [defaulted[1], ...inner.variables] };
  }
  const fork = FORK_DEFAULT.exec(expr);
  if (fork?.[1]) return { variables: [], forkDefault: fork[1], negated: false };
  if (/^[a-z_]\w*$/.test(expr) && !LITERALS.has(expr)) return { variables: [expr], negated: false };
  return { variables: [], fallback: parse(expr) as unknown, negated: false };
}

export interface RoleTemplate {
  /** The text as an x-kubespray-fallback template: "{bin_dir}/calicoctl.sh". */
  template: string;
  /** The default each variable falls back to in the role: { bin_dir: "/usr/local/bin" }. */
  defaults: Record<string, unknown>;
  /** The text when every variable is undefined: "/usr/local/bin/calicoctl.sh". */
  whenUndefined: string;
}

/**
 * A role default built from Kubespray variables ("{{ bin_dir | default('/usr/local/bin') }}/calicoctl.sh"), read
 * as the schemas' x-kubespray-fallback form; null when the text holds no Jinja.
 */
export function roleTemplate(text: string): RoleTemplate | null {
  const jinja = /\{\{ (.+?) \}\}/g;
  if (!jinja.test(text)) return null;
  const defaults: Record<string, unknown> = {};
  const replace = (value: (variable: string, fallback: unknown) => string): string =>
    text.replace(jinja, (whole, expr: string) => {
      const parsed = parseExpression(expr);
      const [variable] = parsed.variables;
      if (parsed.variables.length !== 1 || variable === undefined || parsed.negated)
        throw new Error(`${ROLE_DIR}: ${whole} is not "{{ variable | default(...) }}"`);
      defaults[variable] = parsed.fallback;
      return value(variable, parsed.fallback);
    });
  return {
    template: replace((variable) => `{${variable}}`),
    defaults,
    whenUndefined: replace((_, fallback) => String(fallback)),
  };
}

/** vars/main.yml's variable for module option X: OPTION_VAR_PREFIX + X. */
export const OPTION_VAR_PREFIX = "calico_encap_option_";

export function readRoleYaml(root: string, path: string): unknown {
  return parse(readFileSync(join(root, ROLE_DIR, path), "utf8")) as unknown;
}

/** calico_encap_release_variables: the variables whose defaults the fork's tree gives. */
export function releaseVariables(root = repoRoot): string[] {
  const vars = readRoleYaml(root, "vars/main.yml") as Record<string, unknown>;
  return vars[RELEASE_VARIABLES_VAR] as string[];
}

export async function loadRoleMapping(root = repoRoot): Promise<MappingRow[]> {
  const vars = readRoleYaml(root, "vars/main.yml") as Record<string, string>;
  const options = Object.fromEntries(
    Object.entries(vars)
      .filter(([name]) => name.startsWith(OPTION_VAR_PREFIX))
      .map(([name, template]) => [name.slice(OPTION_VAR_PREFIX.length), template]),
  );
  const defaults = readRoleYaml(root, "defaults/main.yml") as Record<string, unknown>;
  const schemas = await loadModuleSchemas(root);
  return Object.entries(options).map(([option, template]) => {
    const expr = /^\{\{ (.+) \}\}$/.exec(template)?.[1];
    if (!expr)
      throw new Error(
        `${ROLE_DIR}/vars/main.yml: ${option} is not one Jinja expression: ${template}`,
      );
    const { forkDefault, ...parsed } = parseExpression(expr);
    const [first] = parsed.variables;
    if (forkDefault !== undefined && first !== forkDefault)
      throw new Error(
        `${ROLE_DIR}/vars/main.yml: ${option} falls back to the fork's default of another variable`,
      );
    return {
      option,
      ...parsed,
      ...(forkDefault !== undefined ? { forkDefault: true } : {}),
      ...(first !== undefined && Object.hasOwn(defaults, first)
        ? { roleDefault: defaults[first] }
        : {}),
      modules: schemas
        .filter((s) => Object.hasOwn(s.options.properties, option))
        .map((s) => s.name),
    };
  });
}

/** A value as inline code; the empty string, which Markdown cannot put in backticks, as `""`. */
const code = (v: unknown): string =>
  `\`${(typeof v === "string" && v !== "" ? v : JSON.stringify(v)).replaceAll("|", "\\|")}\``;

/** The table of docs/reference.md: one row per option, in the order of vars/main.yml. */
export function mappingTable(rows: MappingRow[]): string {
  const modules = ["calico_pool_check", "calico_encap_migrate"];
  const lines = [
    `| variable | when undefined | ${modules.join(" | ")} |`,
    `|---|---|${modules.map(() => "---|").join("")}`,
  ];
  for (const r of rows) {
    const variable = r.forkFact
      ? `the fork's tree (${code(r.forkFact)})`
      : r.variables.map(code).join(", else ");
    const fallback = r.forkDefault
      ? "the fork's own"
      : r.forkFact
        ? `${code(r.fallback)} (no tree)`
        : code(r.fallback !== undefined ? r.fallback : r.roleDefault);
    const cells = modules.map((m) =>
      r.modules.includes(m) ? `${code(r.option)}${r.negated ? " (negated)" : ""}` : "",
    );
    lines.push(`| ${variable} | ${fallback} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${mappingTable(await loadRoleMapping())}\n`);
}
