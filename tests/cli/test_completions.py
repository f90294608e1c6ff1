"""The committed completion scripts work in the real shells: bash (calling
_jbx with COMP_WORDS/COMP_CWORD set), fish (`complete -C`) and zsh (typing
TAB in an interactive zsh on a pseudo-terminal, with compinit and _jbx on
fpath). Each offers the subcommands, a command's flags, a choice list, the
format names, and input files by extension; the three shells agree on the
format names."""

import atexit
import os
import pty
import select
import shutil
import signal
import tempfile
import time

from docs_common import ROOT, check, run, run_everything

BASH_SCRIPT = os.path.join(ROOT, "completions", "jbx.bash")
ZSH_SCRIPT = os.path.join(ROOT, "completions", "_jbx")
FISH_SCRIPT = os.path.join(ROOT, "completions", "jbx.fish")

COMMANDS = {"fmt", "validate", "convert", "query", "help"}
COLORS = {"auto", "always", "never"}
# Input files of the scratch directory, and what should be offered.
FILES = ["a.json", "b.cbor", "c.txt", "d.jsonl", "e.ndjson", "sub/x.json"]
INPUTS = {"a.json", "b.cbor", "d.jsonl", "e.ndjson", "sub"}

work = tempfile.mkdtemp(prefix="jbx-complete-")
atexit.register(shutil.rmtree, work, True)
for name in FILES:
    os.makedirs(os.path.join(work, os.path.dirname(name)), exist_ok=True)
    open(os.path.join(work, name), "w").close()


def expect(label, got, want=None, includes=None, excludes=()):
    if want is not None:
        assert got == want, f"{label}: offered {sorted(got)}, want {sorted(want)}"
    if includes is not None:
        assert includes <= got, (
            f"{label}: offered {sorted(got)}, lacks {sorted(includes - got)}")
    bad = got & set(excludes)
    assert not bad, f"{label}: offered {sorted(bad)}"


def timezone_flag():
    """(command, --flag) of a flag completing time zones, if the table has
    one (seen in the fish script, which names one flag a line)."""
    with open(FISH_SCRIPT) as f:
        for line in f:
            if "__jbx_zones)" in line and " -l " in line:
                words = line.split()
                cmd = line.split("__jbx_using ")[1].split("'")[0].split()[0]
                return cmd, "--" + words[words.index("-l") + 1]
    return None


# ---- bash -------------------------------------------------------------------

def bash_complete(*words):
    """Candidates _jbx offers with the cursor on the last of `words`."""
    script = ("source {s}\nCOMP_WORDS=({w})\nCOMP_CWORD={c}\n"
              "COMPREPLY=()\n_jbx\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n"
              ).format(s=BASH_SCRIPT,
                       w=" ".join("'" + w.replace("'", "'\\''") + "'"
                                  for w in ("jbx",) + words),
                       c=len(words))
    code, out, err = run(["bash", "--norc", "--noprofile", "-c", script],
                         cwd=work)
    assert code == 0 and not err, f"bash: exit {code}: {err}"
    return {line.rstrip("/") for line in out.splitlines() if line}


bash_formats = set()


@check
def bash_subcommands():
    expect("jbx <TAB>", bash_complete(""), includes=COMMANDS)
    expect("jbx conv<TAB>", bash_complete("conv"), want={"convert"})
    expect("jbx help <TAB>", bash_complete("help", ""),
           includes=COMMANDS - {"help"})


@check
def bash_flags():
    expect("jbx fmt --so<TAB>", bash_complete("fmt", "--so"),
           want={"--sort-keys"})
    expect("jbx fmt -<TAB>", bash_complete("fmt", "-"),
           includes={"-c", "--compact", "--help", "--indent"},
           excludes={"--quiet", "--to"})
    expect("jbx validate --<TAB>", bash_complete("validate", "--"),
           includes={"--quiet"}, excludes={"--sort-keys"})


@check
def bash_choices():
    expect("jbx fmt --color <TAB>", bash_complete("fmt", "--color", ""),
           want=COLORS)
    # bash splits --color=al at '=' (COMP_WORDBREAKS).
    expect("jbx fmt --color=al<TAB>",
           bash_complete("fmt", "--color", "=", "al"), want={"always"})
    expect("jbx fmt --color=<TAB>", bash_complete("fmt", "--color", "="),
           want=COLORS)
    global bash_formats
    bash_formats = bash_complete("convert", "-t", "")
    expect("jbx convert -t <TAB>", bash_formats, includes={"json", "jsonl"})
    expect("jbx convert --to js<TAB>", bash_complete("convert", "--to", "js"),
           want={f for f in bash_formats if f.startswith("js")})


@check
def bash_files():
    expect("jbx fmt <TAB>", bash_complete("fmt", ""), want=INPUTS)
    expect("jbx query <TAB> (the expression)", bash_complete("query", ""),
           want=set())
    expect("jbx query EXPR <TAB>", bash_complete("query", "$.a", ""),
           want=INPUTS)
    expect("jbx query -t json EXPR <TAB>",
           bash_complete("query", "-t", "json", "$.a", ""), want=INPUTS)
    expect("jbx query --from=json <TAB> (the expression)",
           bash_complete("query", "--from", "=", "json", ""), want=set())
    expect("jbx query --from=json EXPR <TAB>",
           bash_complete("query", "--from", "=", "json", "$.a", ""),
           want=INPUTS)
    expect("jbx fmt -o <TAB>", bash_complete("fmt", "-o", ""),
           includes=INPUTS | {"c.txt"})


@check
def bash_timezones():
    tz = timezone_flag()
    if tz is None:
        print("  (no flag completes time zones; skipped)")
        return
    got = bash_complete(tz[0], tz[1], "Europe/Par")
    expect(f"jbx {tz[0]} {tz[1]} Europe/Par<TAB>", got, want={"Europe/Paris"})


# ---- fish -------------------------------------------------------------------

def fish_complete(line):
    code, out, err = run(["fish", "--no-config", "-c",
                          f"source {FISH_SCRIPT}; complete -C {quote(line)}"],
                         cwd=work)
    assert code == 0 and not err, f"fish: exit {code}: {err}"
    return {c.split("\t")[0].rstrip("/") for c in out.splitlines() if c}


def quote(s):
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


fish_formats = set()


@check
def fish_completions():
    expect("jbx <TAB>", fish_complete("jbx "), includes=COMMANDS)
    expect("jbx conv<TAB>", fish_complete("jbx conv"), want={"convert"})
    expect("jbx fmt --so<TAB>", fish_complete("jbx fmt --so"),
           want={"--sort-keys"})
    expect("jbx validate --<TAB>", fish_complete("jbx validate --"),
           includes={"--quiet"}, excludes={"--sort-keys"})
    expect("jbx fmt --color <TAB>", fish_complete("jbx fmt --color "),
           want=COLORS)
    global fish_formats
    fish_formats = fish_complete("jbx convert -t ")
    expect("jbx convert -t <TAB>", fish_formats, includes={"json", "jsonl"})
    expect("jbx fmt <TAB>", fish_complete("jbx fmt "), want=INPUTS)
    tz = timezone_flag()
    if tz is not None:
        expect("time zones", fish_complete(f"jbx {tz[0]} {tz[1]} Europe/Par"),
               want={"Europe/Paris"})


# ---- zsh --------------------------------------------------------------------

ZSHRC = r"""
fpath=({comp} $fpath)
autoload -Uz compinit && compinit -u -d {home}/zcompdump
# Record every match offered (after zsh's own prefix matching), then offer
# it as usual.
compadd() {{
  if (( ${{@[(I)-[OAD]*]}} )); then builtin compadd "$@"; return; fi
  local -a __m
  builtin compadd -O __m "$@"
  (( $#__m )) && print -rl -- $__m >> {capture}
  builtin compadd "$@"
}}
PS1='READY> '
"""


class Zsh:
    """An interactive zsh on a pseudo-terminal."""

    def __init__(self):
        self.home = tempfile.mkdtemp(prefix="jbx-zsh-")
        comp = os.path.join(self.home, "comp")
        os.mkdir(comp)
        shutil.copy(ZSH_SCRIPT, os.path.join(comp, "_jbx"))
        self.capture = os.path.join(self.home, "capture")
        with open(os.path.join(self.home, ".zshrc"), "w") as f:
            f.write(ZSHRC.format(comp=comp, home=self.home,
                                 capture=self.capture))
        env = {"ZDOTDIR": self.home, "HOME": self.home, "TERM": "xterm",
               "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(work)
            os.execve("/usr/bin/zsh", ["zsh", "-i"], env)
        self.read_until(b"READY> ", 20)

    def read_until(self, marker, seconds):
        buf = b""
        end = time.time() + seconds
        while time.time() < end:
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                try:
                    buf += os.read(self.fd, 65536)
                except OSError:
                    break
                if marker and marker in buf:
                    break
        return buf

    def complete(self, line, expect_any=True):
        open(self.capture, "w").close()
        os.write(self.fd, line.encode() + b"\t")
        end = time.time() + (10 if expect_any else 1.5)
        while time.time() < end and os.path.getsize(self.capture) == 0:
            self.read_until(None, 0.1)
        self.read_until(None, 0.3)  # let the last matches arrive
        with open(self.capture) as f:
            got = {w.rstrip("/") for w in f.read().split()}
        os.write(self.fd, b"\x03")  # abandon the line
        self.read_until(b"READY> ", 5)
        return got

    def close(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except OSError:
            pass
        shutil.rmtree(self.home, ignore_errors=True)


@check
def zsh_completions():
    zsh = Zsh()
    try:
        expect("jbx <TAB>", zsh.complete("jbx "), includes=COMMANDS)
        expect("jbx conv<TAB>", zsh.complete("jbx conv"), want={"convert"})
        expect("jbx fmt --so<TAB>", zsh.complete("jbx fmt --so"),
               want={"--sort-keys"})
        expect("jbx validate -<TAB>", zsh.complete("jbx validate -"),
               includes={"-q", "--quiet"}, excludes={"--sort-keys"})
        expect("jbx fmt --color <TAB>", zsh.complete("jbx fmt --color "),
               want=COLORS)
        expect("jbx fmt --color=<TAB>", zsh.complete("jbx fmt --color="),
               want=COLORS)
        formats = zsh.complete("jbx convert -t ")
        expect("jbx convert -t <TAB>", formats, includes={"json", "jsonl"})
        expect("formats agree across shells", formats, want=bash_formats)
        expect("formats agree across shells", fish_formats, want=bash_formats)
        expect("jbx fmt <TAB>", zsh.complete("jbx fmt "), want=INPUTS)
        expect("jbx query <TAB> (the expression)",
               zsh.complete("jbx query ", expect_any=False), want=set())
        tz = timezone_flag()
        if tz is not None:
            # zsh completes a zone path one component at a time.
            expect("time zones",
                   zsh.complete(f"jbx {tz[0]} {tz[1]} Europe/Par"),
                   want={"Paris"})
    finally:
        zsh.close()


run_everything()
