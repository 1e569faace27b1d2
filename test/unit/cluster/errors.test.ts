// What a command the shell could not find (exit 127) is said to be: the tool the shell names, not always the command
// the run asked for (issue 52 finding 9: a target without timeout, base64 or mktemp was told to install kubectl).

import { expect } from "chai";
import { DatastoreError, missingTool } from "../../../src/cluster/errors.js";

const KUBECTL = ["/usr/local/bin/kubectl", "get", "nodes"];
const missing = (stderr: string) => ({ rc: 127, stdout: "", stderr, timedOut: false });

describe("a command the shell could not find (exit 127)", () => {
  for (const [stderr, tool] of [
    ["sh: 1: timeout: not found", "timeout"],
    ["bash: line 1: base64: command not found", "base64"],
    ["calico-encap-batch: mktemp not found on the target", "mktemp"],
  ] as const)
    it(`names coreutils when the shell says ${tool} is missing: ${stderr}`, () => {
      expect(missingTool(stderr)).to.equal(tool);
      const e = DatastoreError.failed(KUBECTL, missing(stderr), "Check access.");
      expect(e.expected).to.equal(`${tool} to run`);
      expect(e.todo).to.match(/^Install coreutils \(timeout, base64, mktemp: /);
      expect(e.todo).not.to.include("kubectl");
    });

  for (const stderr of [
    "bash: line 1: /usr/local/bin/kubectl: command not found",
    "sh: 1: /usr/local/bin/kubectl: not found",
    "timeout: failed to run command '/usr/local/bin/kubectl': No such file or directory",
  ])
    it(`names the command itself when it is the one missing: ${stderr}`, () => {
      const e = DatastoreError.failed(KUBECTL, missing(stderr), "Check access.");
      expect(e.todo).to.match(/^Install kubectl on the host that runs the commands/);
    });
});
