// README's play for a fork, as README writes it: its table (which play goes where, per Kubespray release line) and
// its plays (A, B, C), read from README.md's text, and the play inserted into a fork's playbook where the table says.
// The tests that run the preflight in a fork take it from here, so that what they run is what README tells a user.

import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { REPO } from "./ansible.js";

/** One row of README's table: the release lines it covers, where the play goes, and which play. */
export interface PlayPlacement {
  /** The first and the last minor of the row's release lines (v2.18 - v2.21: 18, 21). */
  minors: [number, number];
  /** The playbooks are the root's (cluster.yml, upgrade-cluster.yml, scale.yml) rather than playbooks/'s. */
  root: boolean;
  /** The playbook the play follows: `import_playbook: <anchor>`. */
  anchor: string;
  /** The play's name in README: A, B or C. */
  play: string;
}

const readme = (): string => readFileSync(join(REPO, "README.md"), "utf8");

/** README's table of where the play goes (the rows under "| fork of | where the play goes | the play |"). */
export function playPlacements(text = readme()): PlayPlacement[] {
  const start = text.indexOf("| fork of | where the play goes | the play |");
  if (start < 0)
    throw new Error("README.md has no table '| fork of | where the play goes | the play |'");
  const rows: PlayPlacement[] = [];
  for (const line of text.slice(start).split("\n").slice(2)) {
    if (!line.startsWith("|")) break;
    const [versions, where, play] = line
      .split("|")
      .slice(1, 4)
      .map((c) => c.trim());
    const v = /^v2\.(\d+)(?: - v2\.(\d+))?$/.exec(versions ?? "");
    const anchor = /`import_playbook: (\S+)`/.exec(where ?? "")?.[1];
    if (!v?.[1] || !anchor || !play)
      throw new Error(`README.md's play table: cannot read the row '${line}'`);
    rows.push({
      minors: [Number(v[1]), Number(v[2] ?? v[1])],
      root: (where ?? "").includes("the root"),
      anchor,
      play,
    });
  }
  return rows;
}

/** The row of README's table for a release ("v2.19.1"); throws when no row covers it. */
export function placementOf(release: string, rows = playPlacements()): PlayPlacement {
  const minor = Number(/^v2\.(\d+)\./.exec(release)?.[1]);
  const row = rows.find((r) => r.minors[0] <= minor && minor <= r.minors[1]);
  if (!row) throw new Error(`README.md's play table has no row for Kubespray ${release}`);
  return row;
}

/** README's play NAME (between `<!-- play:NAME -->` and `<!-- play:end -->`), the YAML without its fence. */
export function readmePlay(name: string, text = readme()): string {
  const m = new RegExp(
    `<!-- play:${name} -->\\n\`\`\`yaml\\n([\\s\\S]*?)\`\`\`\\n<!-- play:end -->`,
  ).exec(text);
  if (!m?.[1])
    throw new Error(
      `README.md has no play '${name}' (<!-- play:${name} --> ... <!-- play:end -->)`,
    );
  return m[1];
}

/** The fork's three playbooks the table names, relative to the tree: the root's or playbooks/'s. */
export function forkPlaybooks(row: PlayPlacement): string[] {
  return row.root
    ? ["cluster.yml", "upgrade-cluster.yml", "scale.yml"]
    : ["playbooks/cluster.yml", "playbooks/upgrade_cluster.yml", "playbooks/scale.yml"];
}

/**
 * A playbook's text with PLAY (a YAML list of one play, as README writes it) inserted right after the list item that
 * imports ANCHOR, as README tells a user; throws when the playbook imports no ANCHOR.
 */
export function insertPlay(playbook: string, anchor: string, play: string): string {
  const lines = playbook.split("\n");
  const at = lines.findIndex((l) =>
    new RegExp(`import_playbook:\\s*${anchor.replace(/\./g, "\\.")}\\s*$`).test(l),
  );
  if (at < 0) throw new Error(`the playbook imports no ${anchor}`);
  // The item ends before the next top-level item (a line starting with "- ") or a top-level comment.
  let end = at + 1;
  while (end < lines.length && !/^(- |#)/.test(lines[end]!)) end++;
  while (end > at + 1 && lines[end - 1]!.trim() === "") end--;
  return [...lines.slice(0, end), "", play.trimEnd(), "", ...lines.slice(end)].join("\n");
}

/**
 * A fork of the release's TREE: links to the tree's files, its three playbooks with README's play inserted where
 * README's table says, and `calico-encap-prefix.yml`, cluster.yml's plays before README's. In a new folder, or in
 * INTO (whose own entries, e.g. an ansible.cfg and the roles already linked, are kept).
 */
export function forkWithReadmePlay(
  release: string,
  tree: string,
  into?: string,
): { dir: string; playbooks: string[]; prefix: string } {
  const row = placementOf(release);
  const play = readmePlay(row.play);
  const dir = into ?? mkdtempSync(join(tmpdir(), `calico-encap-fork-${release}-`));
  const changed = forkPlaybooks(row);
  const link = (rel: string): void => {
    const from = join(tree, rel);
    const to = join(dir, rel);
    if (changed.includes(rel) || existsSync(to)) return;
    if (!row.root && rel === "playbooks") {
      mkdirSync(to);
      for (const f of readdirSync(from)) link(join(rel, f));
      return;
    }
    symlinkSync(from, to);
  };
  for (const f of readdirSync(tree)) link(f);
  for (const rel of changed)
    writeFileSync(
      join(dir, rel),
      insertPlay(readFileSync(join(tree, rel), "utf8"), row.anchor, play),
    );
  // The plays before README's: cluster.yml's text up to the import it follows, as a playbook beside it.
  const cluster = readFileSync(join(tree, changed[0] ?? ""), "utf8");
  const upTo = insertPlay(cluster, row.anchor, "# README's play");
  const prefix = join(dirname(changed[0] ?? ""), "calico-encap-prefix.yml");
  writeFileSync(join(dir, prefix), upTo.slice(0, upTo.indexOf("# README's play")));
  return { dir, playbooks: changed, prefix };
}
