"""Helpers shared by test_docs.py, test_completions.py and test_install.py:
the repository root, a check registry whose failures join the harness's
count, and running tools."""

import os
import subprocess
import sys
import traceback

import harness

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
JBX = harness.JBX

_checks = []


def check(fn):
    """Registers fn() as a named check; an AssertionError fails it."""
    _checks.append(fn)
    return fn


def run(cmd, stdin=b"", env=None, cwd=None, timeout=60):
    """Runs cmd; returns (exit code, stdout text, stderr text)."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    p = subprocess.run(cmd, input=stdin, capture_output=True, env=full_env,
                       cwd=cwd, timeout=timeout)
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


def generate(what):
    code, out, err = run([JBX, f"--generate={what}"])
    assert code == 0, f"jbx --generate={what} exited {code}: {err}"
    return out


def run_everything():
    """Runs the registered checks, then the harness cases; exits 1 when
    anything failed."""
    passed = failed = 0
    for fn in _checks:
        try:
            fn()
            passed += 1
        except AssertionError as e:
            failed += 1
            print(f"FAIL {fn.__name__}: {e}")
        except Exception:  # a crash in a check is a failure, with its trace
            failed += 1
            print(f"FAIL {fn.__name__}: crashed")
            traceback.print_exc(file=sys.stdout)
    print(f"checks: {passed} passed, {failed} failed")
    try:
        harness.run_all()
        code = 0
    except SystemExit as e:
        code = e.code
    sys.exit(1 if failed or code else 0)
