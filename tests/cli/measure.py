"""Runs jbx and measures its peak memory, for the end-to-end tests that
bound it."""

import os
import subprocess
import sys
import tempfile

from harness import JBX

# A sanitizer build adds to what it allocates: AddressSanitizer's shadow
# takes one byte for every eight the program touches, and its quarantine
# holds freed memory back.
with open(JBX, "rb") as _f:
    SANITIZED = b"__asan_init" in _f.read()

# Starts jbx from a small process and writes its peak RSS (KiB) to the
# file argv[1]. A process forked from this test would carry the test's own
# RSS into jbx's peak: Linux keeps the high-water mark across exec.
PEAK = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run(args, stdin_path=None, pipe=False, out_path=os.devnull,
        one_cpu=False):
    """Runs jbx; returns (exit code, stderr, peak RSS in KiB). With pipe,
    stdin_path is fed through `cat`, so jbx reads a pipe, not a file. With
    one_cpu, jbx may run on one CPU only (and so uses no second thread)."""
    feeder = None
    if stdin_path is None:
        stdin = subprocess.DEVNULL
    elif pipe:
        feeder = subprocess.Popen(["cat", stdin_path], stdout=subprocess.PIPE)
        stdin = feeder.stdout
    else:
        stdin = open(stdin_path, "rb")
    # A sanitizer build holds freed memory back for a while (up to 256 MiB):
    # the test asks it to hold little, so that its peak follows what is live.
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ":".join(
        x for x in (env.get("ASAN_OPTIONS"), "quarantine_size_mb=4") if x)
    with open(out_path, "wb") as out, tempfile.NamedTemporaryFile() as peak:
        cpu = min(os.sched_getaffinity(0))
        p = subprocess.Popen([sys.executable, "-c", PEAK, peak.name, JBX] +
                             args, stdin=stdin, stdout=out,
                             stderr=subprocess.PIPE, env=env,
                             preexec_fn=(lambda: os.sched_setaffinity(0, {cpu}))
                             if one_cpu else None)
        if feeder is not None:
            feeder.stdout.close()
        err = p.stderr.read()
        p.wait()
        rss = int(peak.read() or 0)
    if feeder is not None:
        feeder.wait()
    elif stdin_path is not None:
        stdin.close()
    return p.returncode, err, rss
