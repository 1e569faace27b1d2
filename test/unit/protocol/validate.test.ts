import { expect } from "chai";
import type { ValidationSettings } from "../../../src/protocol/validate.js";
import { validateOptions } from "../../../src/protocol/validate.js";
import { args, testSchema } from "./helpers/test-module.js";

const settings: ValidationSettings = {
  moduleName: "test_module",
  ignoreUnknownOpts: false,
  stringConversionAction: "warn",
};

function validate(options: Record<string, unknown>, over: Partial<ValidationSettings> = {}) {
  return validateOptions(testSchema, options, { ...settings, ...over });
}

describe("validateOptions", () => {
  describe("unsupported parameters", () => {
    it("lists unknown names sorted and every supported name with its aliases", () => {
      const r = validate(args({ zeta: 1, alpha: 2 }));
      expect(r.error).to.equal(
        "Unsupported parameters for (test_module) module: alpha, zeta. Supported parameters include: " +
          "comment, enabled, labels, name (id, nm), password, port, size, state (st), tags.",
      );
    });

    it("uses the module name it is given (e.g. _ansible_module_name)", () => {
      const r = validate(args({ bogus: 1 }), { moduleName: "ns.coll.test_module" });
      expect(r.error).to.match(
        /^Unsupported parameters for \(ns\.coll\.test_module\) module: bogus\. /,
      );
    });

    it("is reported after every other error", () => {
      const r = validate({ bogus: 1, size: 3 });
      expect(r.error).to.equal("missing required arguments: name");
    });

    it("is not an error with ignore_unknown_opts", () => {
      const r = validate(args({ bogus: 1 }), { ignoreUnknownOpts: true });
      expect(r.error).to.equal(null);
      expect(r.params).to.not.have.property("bogus");
    });
  });

  describe("required", () => {
    it("names every missing option, sorted", () => {
      expect(validate({}).error).to.equal("missing required arguments: name, size");
    });

    it("counts an explicit null as missing", () => {
      expect(validate({ name: null, size: 2 }).error).to.equal("missing required arguments: name");
    });

    it("is satisfied through an alias", () => {
      const r = validate({ nm: "web", size: 2 });
      expect(r.error).to.equal(null);
      expect(r.params.name).to.equal("web");
    });
  });

  describe("aliases", () => {
    it("resolves an alias to its option and drops the alias", () => {
      const r = validate(args({ st: "absent" }));
      expect(r.params.state).to.equal("absent");
      expect(r.params).to.not.have.property("st");
    });

    it("lets the alias win and warns when both are set", () => {
      const r = validate(args({ state: "present", st: "absent" }));
      expect(r.params.state).to.equal("absent");
      expect(r.warnings).to.deep.equal(["Both option state and its alias st are set."]);
    });
  });

  describe("defaults", () => {
    it("fills defaults and sets options without one to null", () => {
      const r = validate(args());
      expect(r.error).to.equal(null);
      expect(r.params).to.deep.equal({
        name: "web",
        size: 3,
        state: "present",
        enabled: false,
        tags: null,
        labels: null,
        password: null,
        comment: null,
        port: 8080,
      });
    });

    it("gives an option its default when the task passes null", () => {
      expect(validate(args({ port: null })).params.port).to.equal(8080);
    });

    it("keeps a given value over the default", () => {
      expect(validate(args({ port: 9090 })).params.port).to.equal(9090);
    });
  });

  describe("types", () => {
    for (const [given, expected] of [
      ["yes", true],
      ["No", false],
      ["TRUE", true],
      ["off", false],
      ["on", true],
      ["y", true],
      ["n", false],
      ["t", true],
      ["F", false],
      ["1", true],
      ["0", false],
      [1, true],
      [0, false],
    ] as const) {
      it(`converts ${JSON.stringify(given)} to the bool ${String(expected)}`, () => {
        const r = validate(args({ enabled: given }));
        expect(r.error).to.equal(null);
        expect(r.params.enabled).to.equal(expected);
      });
    }

    it("rejects a string that is not a boolean", () => {
      expect(validate(args({ enabled: "maybe" })).error).to.match(
        /^argument 'enabled' is of type <class 'str'> and we were unable to convert to bool: The value 'maybe' is not a valid boolean\./,
      );
    });

    it("rejects the number 2 as a boolean", () => {
      expect(validate(args({ enabled: 2 })).error).to.match(
        /^argument 'enabled' is of type <class 'int'>/,
      );
    });

    it("converts a string of digits to an int", () => {
      expect(validate(args({ size: "7" })).params.size).to.equal(7);
    });

    it("rejects a non-numeric string as an int", () => {
      expect(validate(args({ size: "seven" })).error).to.equal(
        "argument 'size' is of type <class 'str'> and we were unable to convert to int: 'seven' cannot be converted to an int",
      );
    });

    it("rejects a float with a fraction as an int", () => {
      expect(validate(args({ size: 2.5 })).error).to.match(
        /^argument 'size' is of type <class 'float'>/,
      );
    });

    it("converts numbers and bools to str as Python prints them, with a warning", () => {
      const r = validate(args({ comment: true }));
      expect(r.params.comment).to.equal("True");
      expect(r.warnings[0]).to.match(
        /^The value True \(type bool\) in a string field was converted to 'True'/,
      );
      expect(validate(args({ comment: 42 })).params.comment).to.equal("42");
      expect(validate(args({ comment: [1, "a"] })).params.comment).to.equal("[1, 'a']");
    });

    it("fails a non-string in a str option when string conversion is 'error'", () => {
      const r = validate(args({ comment: 5 }), { stringConversionAction: "error" });
      expect(r.error).to.match(
        /^argument 'comment' is of type <class 'int'> and we were unable to convert to str/,
      );
    });

    it("converts without a warning when string conversion is 'ignore'", () => {
      const r = validate(args({ comment: 5 }), { stringConversionAction: "ignore" });
      expect(r.params.comment).to.equal("5");
      expect(r.warnings).to.deep.equal([]);
    });

    it("splits a comma-separated string into a list and converts the elements", () => {
      expect(validate(args({ tags: "a,b,c" })).params.tags).to.deep.equal(["a", "b", "c"]);
      expect(validate(args({ tags: [1, "x"] })).params.tags).to.deep.equal(["1", "x"]);
    });

    it("reads a dict from JSON text or key=value pairs", () => {
      expect(validate(args({ labels: '{"a": 1}' })).params.labels).to.deep.equal({ a: 1 });
      expect(validate(args({ labels: "a=1, b='x y'" })).params.labels).to.deep.equal({
        a: "1",
        b: "x y",
      });
      expect(validate(args({ labels: "nonsense" })).error).to.match(
        /^argument 'labels' is of type <class 'str'>/,
      );
    });

    it("reports type errors in schema order, after missing required", () => {
      expect(validate({ size: "x", enabled: "maybe" }).error).to.equal(
        "missing required arguments: name",
      );
      expect(validate(args({ port: "x", enabled: "maybe" })).error).to.match(/^argument 'enabled'/);
    });
  });

  describe("choices and other schema checks", () => {
    it("uses AnsibleModule's wording for choices", () => {
      expect(validate(args({ state: "gone" })).error).to.equal(
        "value of state must be one of: present, absent, got: gone",
      );
    });

    it("reports choices before a pattern or range error", () => {
      expect(validate(args({ name: "Bad Name", state: "gone" })).error).to.match(
        /^value of state must be one of/,
      );
    });

    it("reports a pattern mismatch with the pattern and the value", () => {
      expect(validate(args({ name: "Bad Name" })).error).to.equal(
        "value of name must match ^[a-z][a-z0-9-]*$, got: Bad Name",
      );
    });

    it("reports a range error with both bounds", () => {
      expect(validate(args({ size: 40 })).error).to.equal(
        "value of size must be between 1 and 10, got: 40",
      );
      expect(validate(args({ size: "0" })).error).to.equal(
        "value of size must be between 1 and 10, got: 0",
      );
    });

    it("accepts values at the bounds", () => {
      expect(validate(args({ size: 1 })).error).to.equal(null);
      expect(validate(args({ size: 10 })).error).to.equal(null);
    });
  });

  describe("no_log values", () => {
    it("collects the value of a no_log option given under its name", () => {
      expect(validate(args({ password: "s3cret" })).secrets).to.deep.equal(["s3cret"]);
    });

    it("collects nothing when the no_log option is not given", () => {
      expect(validate(args()).secrets).to.deep.equal([]);
    });
  });
});
