// The build handshake between a collection's action plugins and its bundled backend (src/build-id.ts).
import { expect } from "chai";
import { BUILD_ID, buildMismatch } from "../../../src/build-id.js";
import { parsePluginLine } from "../../../src/bridge/protocol.js";

describe("the build handshake", () => {
  it("lets a checkout's plugin (no build) and a plugin of the same build run the backend", () => {
    expect(buildMismatch(undefined)).to.equal(null);
    expect(buildMismatch(BUILD_ID)).to.equal(null);
  });
  it("refuses a plugin of another build, naming both builds and what to do", () => {
    expect(buildMismatch("calico-encap-build:0123456789abcdef")).to.equal(
      `the action plugin comes from build calico-encap-build:0123456789abcdef and this calico-encap backend from build ${BUILD_ID}: they must come from the same build. Reinstall the collection (ansible-galaxy collection install --force with its tarball); its plugins run the backend bundled beside them, and another calico-encap (CALICO_ENCAP_BACKEND, PATH) only when that bundle is missing.`,
    );
  });
  it("carries the run op's build, and refuses one that is not a string", () => {
    const ok = parsePluginLine('{"op":"run","module":"calico_pool_check","args":{},"build":"b"}');
    expect(ok).to.deep.equal({
      ok: true,
      message: { op: "run", module: "calico_pool_check", args: {}, build: "b" },
    });
    const bad = parsePluginLine('{"op":"run","module":"calico_pool_check","args":{},"build":7}');
    expect(bad.ok).to.equal(false);
    if (!bad.ok) expect(bad.error).to.match(/a run op whose build is of type int, not a string/);
  });
});
