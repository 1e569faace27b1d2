// Where the collection's backend keeps V8's code cache (src/bundle/code-cache.ts).
import { expect } from "chai";
import { codeCacheFile } from "../../../src/bundle/code-cache.js";

describe("the code cache's file", () => {
  const where = (env: Record<string, string | undefined>, home = "/home/u") => ({
    env,
    home,
    build: "calico-encap-build:0123456789abcdef",
    v8: "11.3.244.8-node.38",
    arch: "x64",
    mode: "bridge",
  });
  it("is one file per build, mode, V8 and architecture under ~/.cache/calico-encap/code-cache", () => {
    expect(codeCacheFile(where({}))).to.deep.equal({
      dir: "/home/u/.cache/calico-encap/code-cache",
      file: "/home/u/.cache/calico-encap/code-cache/0123456789abcdef-bridge-v8-11.3.244.8-node.38-x64.bin",
    });
  });
  it("follows XDG_CACHE_HOME, and CALICO_ENCAP_CODE_CACHE before it", () => {
    expect(codeCacheFile(where({ XDG_CACHE_HOME: "/var/cache/u" }))?.dir).to.equal(
      "/var/cache/u/calico-encap/code-cache",
    );
    expect(
      codeCacheFile(where({ XDG_CACHE_HOME: "/var/cache/u", CALICO_ENCAP_CODE_CACHE: "/srv/cc" }))
        ?.dir,
    ).to.equal("/srv/cc");
  });
  it("names the mode, or other for anything else (a usage error)", () => {
    for (const mode of ["check", "migrate", "module", "bridge"])
      expect(codeCacheFile({ ...where({}), mode })?.file).to.include(`-${mode}-v8-`);
    expect(codeCacheFile({ ...where({}), mode: "../x" })?.file).to.include("-other-v8-");
    expect(codeCacheFile({ ...where({}), mode: undefined })?.file).to.include("-other-v8-");
  });
  it("is none with CALICO_ENCAP_CODE_CACHE=off or without a home", () => {
    expect(codeCacheFile(where({ CALICO_ENCAP_CODE_CACHE: "off" }))).to.equal(null);
    expect(codeCacheFile(where({}, ""))).to.equal(null);
  });
  it("keeps a build or version's odd characters out of the file name", () => {
    const odd = { ...where({}), build: "calico-encap-build:a/b", v8: "1 2" };
    expect(codeCacheFile(odd)?.file).to.equal(
      "/home/u/.cache/calico-encap/code-cache/a_b-bridge-v8-1_2-x64.bin",
    );
  });
});
