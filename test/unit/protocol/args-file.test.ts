import { expect } from "chai";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgsText, readArgsFile } from "../../../src/protocol/args-file.js";

describe("args file", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "calico-encap-args-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads the flat JSON dict Ansible writes", async () => {
    const path = join(dir, "args");
    await writeFile(path, JSON.stringify({ name: "x", _ansible_check_mode: false }));
    expect(await readArgsFile(path)).to.deep.equal({
      ok: true,
      args: { name: "x", _ansible_check_mode: false },
    });
  });

  it("fails naming the path when the file cannot be read", async () => {
    const path = join(dir, "missing");
    const r = await readArgsFile(path);
    expect(r.ok).to.equal(false);
    if (!r.ok) {
      expect(r.result.failed).to.equal(true);
      expect(r.result.msg).to.include(`cannot read the arguments file ${path}`);
    }
  });

  it("fails naming the path when the file is not JSON, hinting at WANT_JSON for key=value", () => {
    const r = parseArgsText("name=x size=3", "/tmp/args");
    expect(r.ok).to.equal(false);
    if (!r.ok) {
      expect(r.result.msg).to.match(/^the arguments file \/tmp\/args is not valid JSON: /);
      expect(r.result.msg).to.include("WANT_JSON");
    }
  });

  it("does not hint at WANT_JSON for other garbage", () => {
    const r = parseArgsText("{not json", "/a");
    expect(r.ok).to.equal(false);
    if (!r.ok) expect(r.result.msg).to.not.include("WANT_JSON");
  });
});
