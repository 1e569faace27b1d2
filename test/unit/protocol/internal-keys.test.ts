import { expect } from "chai";
import {
  readInternals,
  splitInternalKeys,
  wantsTraceback,
} from "../../../src/protocol/internal-keys.js";

describe("_ansible_* keys", () => {
  it("splits them from the options and reads the known ones", () => {
    const { options, internals } = splitInternalKeys({
      name: "x",
      _ansible_check_mode: true,
      _ansible_diff: "yes",
      _ansible_verbosity: "3",
      _ansible_no_log: false,
      _ansible_debug: false,
      _ansible_module_name: "calico_pool_check",
      _ansible_version: "2.18.1",
      _ansible_tracebacks_for: ["warning"],
      _ansible_ignore_unknown_opts: true,
      _ansible_string_conversion_action: "error",
      _ansible_tmpdir: "/tmp/x",
      _ansible_future_key: 1,
    });
    expect(options).to.deep.equal({ name: "x" });
    expect(internals).to.deep.include({
      checkMode: true,
      diff: true,
      verbosity: 3,
      noLog: false,
      debug: false,
      moduleName: "calico_pool_check",
      version: "2.18.1",
      tracebacksFor: ["warning"],
      ignoreUnknownOpts: true,
      stringConversionAction: "error",
      tmpdir: "/tmp/x",
    });
    expect(internals.raw).to.have.property("_ansible_future_key", 1);
  });

  it("falls back to defaults for absent or malformed values, but a malformed check mode is check mode", () => {
    const { internals } = splitInternalKeys({
      _ansible_check_mode: "perhaps",
      _ansible_verbosity: "lots",
    });
    expect(internals).to.deep.include({
      checkMode: true,
      verbosity: 0,
      moduleName: null,
      version: null,
      tracebacksFor: null,
      stringConversionAction: "warn",
    });
  });

  it("wants a traceback at verbosity 3, with debug, or when tracebacks_for has error", () => {
    const t = (raw: Record<string, unknown>) => wantsTraceback(splitInternalKeys(raw).internals);
    expect(t({ _ansible_verbosity: 2 })).to.equal(false);
    expect(t({ _ansible_verbosity: 3 })).to.equal(true);
    expect(t({ _ansible_debug: true })).to.equal(true);
    expect(t({ _ansible_tracebacks_for: ["error"] })).to.equal(true);
    expect(t({ _ansible_tracebacks_for: ["warning"] })).to.equal(false);
  });
});

describe("an unreadable _ansible_check_mode", () => {
  it("is check mode: an unclear request writes nothing (AnsibleModule takes any truthy value so)", () => {
    expect(readInternals({ _ansible_check_mode: "banana" }).checkMode).to.equal(true);
    expect(readInternals({ _ansible_check_mode: [] }).checkMode).to.equal(true);
    expect(readInternals({ _ansible_check_mode: "no" }).checkMode).to.equal(false);
    expect(readInternals({ _ansible_check_mode: false }).checkMode).to.equal(false);
    expect(readInternals({}).checkMode).to.equal(false);
    expect(readInternals({ _ansible_check_mode: null }).checkMode).to.equal(false);
  });
});
