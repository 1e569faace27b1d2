import { expect } from "chai";
import { executeModule } from "../../../src/protocol/module.js";
import { NO_LOG_MASK, NO_LOG_PLACEHOLDER } from "../../../src/protocol/no-log.js";
import { args, testModule } from "./helpers/test-module.js";

describe("executeModule", () => {
  it("fails when the arguments are not a JSON object", async () => {
    for (const raw of [null, [1], "x", 3]) {
      const r = await executeModule(testModule(), raw);
      expect(r.failed).to.equal(true);
      expect(r.changed).to.equal(false);
      expect(r.msg).to.match(/^module arguments must be a JSON object \(dict\), got /);
    }
  });

  it("runs the module with the validated params and adds changed and invocation", async () => {
    const r = await executeModule(testModule(), args({ size: "4" }));
    expect(r.failed).to.equal(undefined);
    expect(r.changed).to.equal(false);
    expect((r.params as Record<string, unknown>).size).to.equal(4);
    expect(r.invocation).to.deep.equal({
      module_args: {
        name: "web",
        size: 4,
        state: "present",
        enabled: false,
        tags: null,
        labels: null,
        password: null,
        comment: null,
        port: 8080,
      },
    });
  });

  it("keeps changed: true from the module", async () => {
    const r = await executeModule(
      testModule(() => Promise.resolve({ changed: true })),
      args(),
    );
    expect(r.changed).to.equal(true);
  });

  it("accepts unknown _ansible_ keys and does not pass them to the module", async () => {
    const r = await executeModule(
      testModule(),
      args({
        _ansible_brand_new_key: { x: 1 },
        _ansible_tracebacks_for: ["error"],
        _ansible_target_log_info: null,
      }),
    );
    expect(r.failed).to.equal(undefined);
    expect(Object.keys(r.params as object).some((k) => k.startsWith("_ansible_"))).to.equal(false);
  });

  it("reports the first validation error as a failed result with invocation", async () => {
    const r = await executeModule(testModule(), { size: 3 });
    expect(r).to.include({ failed: true, changed: false, msg: "missing required arguments: name" });
    expect(r).to.have.property("invocation");
  });

  it("names the module from _ansible_module_name in the unsupported-parameters error", async () => {
    const r = await executeModule(
      testModule(),
      args({ x: 1, _ansible_module_name: "my.col.test_module" }),
    );
    expect(r.msg).to.match(/^Unsupported parameters for \(my\.col\.test_module\) module: x\./);
  });

  it("ignores unknown options with _ansible_ignore_unknown_opts", async () => {
    const r = await executeModule(testModule(), args({ x: 1, _ansible_ignore_unknown_opts: true }));
    expect(r.failed).to.equal(undefined);
  });

  describe("check mode", () => {
    it("skips a module without check mode support, with AnsibleModule's message", async () => {
      let ran = false;
      const def = testModule(() => {
        ran = true;
        return Promise.resolve({ changed: true });
      }, false);
      const r = await executeModule(def, args({ _ansible_check_mode: true }));
      expect(ran).to.equal(false);
      expect(r).to.include({
        skipped: true,
        changed: false,
        msg: "remote module (test_module) does not support check mode",
      });
    });

    it("uses _ansible_module_name in the skip message", async () => {
      const r = await executeModule(
        testModule(undefined, false),
        args({ _ansible_check_mode: true, _ansible_module_name: "x.y.z" }),
      );
      expect(r.msg).to.equal("remote module (x.y.z) does not support check mode");
    });

    it("still fails on invalid options in check mode", async () => {
      const r = await executeModule(testModule(undefined, false), {
        _ansible_check_mode: true,
        size: 3,
      });
      expect(r).to.include({ failed: true, msg: "missing required arguments: name" });
      expect(r).to.not.have.property("skipped");
    });

    it("runs a module that supports check mode, telling it so", async () => {
      const r = await executeModule(testModule(), args({ _ansible_check_mode: "yes" }));
      expect(r.check_mode).to.equal(true);
      expect(r).to.not.have.property("skipped");
    });
  });

  describe("context", () => {
    it("passes diff, verbosity, no_log, module name and version", async () => {
      let seen: unknown;
      const def = testModule((ctx) => {
        const { diff, verbosity, noLog, moduleName, ansibleVersion, checkMode } = ctx;
        seen = { diff, verbosity, noLog, moduleName, ansibleVersion, checkMode };
        return Promise.resolve({});
      });
      await executeModule(
        def,
        args({
          _ansible_diff: true,
          _ansible_verbosity: 2,
          _ansible_no_log: false,
          _ansible_version: "2.18.1",
        }),
      );
      expect(seen).to.deep.equal({
        diff: true,
        verbosity: 2,
        noLog: false,
        moduleName: "test_module",
        ansibleVersion: "2.18.1",
        checkMode: false,
      });
    });

    it("logs only at or below the task's verbosity, with secrets masked", async () => {
      const lines: string[] = [];
      const def = testModule((ctx) => {
        ctx.log(1, "one, password is hunter2");
        ctx.log(3, "three");
        return Promise.resolve({});
      });
      await executeModule(def, args({ password: "hunter2", _ansible_verbosity: 2 }), (m) =>
        lines.push(m),
      );
      expect(lines).to.deep.equal([`one, password is ${NO_LOG_MASK}`]);
    });

    it("does not log at all with _ansible_no_log", async () => {
      const lines: string[] = [];
      const def = testModule((ctx) => {
        ctx.log(0, "x");
        return Promise.resolve({});
      });
      await executeModule(def, args({ _ansible_no_log: true }), (m) => lines.push(m));
      expect(lines).to.deep.equal([]);
    });
  });

  describe("no_log", () => {
    it("masks the no_log option in invocation and its value in every result string", async () => {
      const def = testModule(() =>
        Promise.resolve({
          msg: "connected with hunter2 as web",
          echo: "hunter2",
          nested: ["xhunter2x"],
        }),
      );
      const r = await executeModule(def, args({ password: "hunter2" }));
      expect(
        (r.invocation as { module_args: Record<string, unknown> }).module_args.password,
      ).to.equal(NO_LOG_PLACEHOLDER);
      expect(r.msg).to.equal(`connected with ${NO_LOG_MASK} as web`);
      expect(r.echo).to.equal(NO_LOG_PLACEHOLDER);
      expect(r.nested).to.deep.equal([`x${NO_LOG_MASK}x`]);
      expect(JSON.stringify(r)).to.not.include("hunter2");
    });

    it("masks a secret in a validation error message", async () => {
      const r = await executeModule(testModule(), args({ password: "hunter2", state: "hunter2" }));
      expect(r.failed).to.equal(true);
      expect(r.msg).to.equal(`value of state must be one of: present, absent, got: ${NO_LOG_MASK}`);
    });

    it("leaves a null no_log option as null in invocation", async () => {
      const r = await executeModule(testModule(), args());
      expect(
        (r.invocation as { module_args: Record<string, unknown> }).module_args.password,
      ).to.equal(null);
    });
  });

  describe("a module that throws", () => {
    const crash = testModule(() => Promise.reject(new Error("kaboom")));

    it("becomes a failed result with the error message and no stack by default", async () => {
      const r = await executeModule(crash, args());
      expect(r).to.include({ failed: true, changed: false, msg: "kaboom" });
      expect(r).to.not.have.property("exception");
      expect(r).to.have.property("invocation");
    });

    it("carries the stack at verbosity 3", async () => {
      const r = await executeModule(crash, args({ _ansible_verbosity: 3 }));
      expect(r.exception).to.be.a("string").and.to.include("kaboom");
    });

    it("carries no stack at verbosity 2", async () => {
      const r = await executeModule(crash, args({ _ansible_verbosity: 2 }));
      expect(r).to.not.have.property("exception");
    });

    it("carries the stack with _ansible_debug", async () => {
      const r = await executeModule(crash, args({ _ansible_debug: true }));
      expect(r.exception).to.be.a("string");
    });

    it("handles a thrown non-Error", async () => {
      const def = testModule(() => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw "plain string";
      });
      const r = await executeModule(def, args());
      expect(r).to.include({ failed: true, msg: "plain string" });
    });

    it("fails when run() returns something that is not an object", async () => {
      const def = testModule(() => Promise.resolve(null as unknown as Record<string, unknown>));
      const r = await executeModule(def, args());
      expect(r.failed).to.equal(true);
      expect(r.msg).to.match(/returned NoneType, not a result object/);
    });
  });

  it("merges validation warnings before the module's own", async () => {
    const def = testModule(() => Promise.resolve({ warnings: ["from the module"] }));
    const r = await executeModule(def, args({ comment: 5 }));
    expect(r.warnings).to.have.length(2);
    expect((r.warnings as string[])[1]).to.equal("from the module");
  });

  it("never throws, even for a schema Ajv rejects", async () => {
    const def = {
      ...testModule(),
      optionsSchema: { type: "object", properties: { a: { type: "nonsense" } } },
    };
    const r = await executeModule(def, { a: 1 });
    expect(r.failed).to.equal(true);
    expect(r.msg).to.match(/^internal error in module test_module: /);
  });
});
