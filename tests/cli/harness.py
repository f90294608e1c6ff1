"""End-to-end test harness: runs the built jbx binary and pins stdout,
stderr and exit code (style guide G10).

A test file is `tests/cli/test_<area>.py` (or tests/conformance/...), run by
CTest as `python3 test_x.py JBX SHARED_DIR`:

    from harness import case, run_all, jbx_run
    case("fmt_compact", ["fmt", "-c"], stdin='{"a": 1}',
         stdout='{"a":1}\\n')
    run_all()

Each case runs in a fresh temporary directory (files= creates inputs there;
the placeholder {shared} in args expands to the shared folder). A mismatch
prints an expected-versus-actual block. The last line is
'N passed, M failed', and the exit status is 1 when anything failed.
"""

import os
import subprocess
import sys
import tempfile

JBX = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "jbx"
SHARED = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else ""

_cases = []


def _b(x):
    if x is None:
        return None
    return x.encode() if isinstance(x, str) else x


def jbx_run(args, stdin=b"", cwd=None, env=None, timeout=120):
    """Runs jbx with args; returns (exit code, stdout bytes, stderr bytes)."""
    full_env = dict(os.environ)
    full_env.pop("NO_COLOR", None)
    if env:
        full_env.update(env)
    p = subprocess.run([JBX] + list(args), input=_b(stdin) or b"",
                       capture_output=True, cwd=cwd, env=full_env,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def case(name, args, stdin="", stdout=None, stderr="", code=0, files=None,
         env=None, check=None):
    """Registers one case. stdout/stderr None means "not checked"; stderr
    defaults to empty. files maps names to str/bytes contents created in the
    case's directory. check(dir, out, err) may assert more (raise
    AssertionError)."""
    _cases.append(dict(name=name, args=args, stdin=stdin, stdout=stdout,
                       stderr=stderr, code=code, files=files or {}, env=env,
                       check=check))


def _show(label, data):
    if isinstance(data, bytes):
        try:
            data = data.decode()
        except UnicodeDecodeError:
            data = repr(data)
    return f"--- {label} ---\n{data}\n"


def run_all():
    passed = failed = 0
    for c in _cases:
        with tempfile.TemporaryDirectory() as d:
            for fname, content in c["files"].items():
                path = os.path.join(d, fname)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(_b(content))
            args = [a.replace("{shared}", SHARED).replace("{dir}", d)
                    for a in c["args"]]
            problems = []
            try:
                code, out, err = jbx_run(args, c["stdin"], cwd=d, env=c["env"])
            except subprocess.TimeoutExpired:
                problems.append("timed out")
                code, out, err = None, b"", b""
            if not problems:
                if code != c["code"]:
                    problems.append(f"exit code {code}, expected {c['code']}")
                if c["stdout"] is not None and out != _b(c["stdout"]):
                    problems.append("stdout differs\n" +
                                    _show("expected stdout", _b(c["stdout"])) +
                                    _show("actual stdout", out))
                if c["stderr"] is not None and err != _b(c["stderr"]):
                    problems.append("stderr differs\n" +
                                    _show("expected stderr", _b(c["stderr"])) +
                                    _show("actual stderr", err))
                if c["check"] and not problems:
                    try:
                        c["check"](d, out, err)
                    except AssertionError as e:
                        problems.append(f"check failed: {e}")
            if problems:
                failed += 1
                print(f"FAIL {c['name']}: jbx {' '.join(args)}")
                for p in problems:
                    print("  " + p.replace("\n", "\n  "))
                if err and "stderr differs" not in "".join(problems):
                    print(_show("stderr", err))
            else:
                passed += 1
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
