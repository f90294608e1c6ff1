"""`cmake --install` puts jbx, its man pages and its completions where
packagers and shells expect them: bin/jbx, share/man/man1/jbx*.1,
share/bash-completion/completions/jbx, share/zsh/site-functions/_jbx,
share/fish/vendor_completions.d/jbx.fish. The installed pages open with
`man -M PREFIX/share/man`, and each shell loads its completion from the
installed location."""

import atexit
import glob
import os
import shutil
import tempfile

from docs_common import JBX, ROOT, check, generate, run, run_everything

BUILD = os.path.dirname(JBX)
prefix = tempfile.mkdtemp(prefix="jbx-install-")
atexit.register(shutil.rmtree, prefix, True)


def installed(rel):
    return os.path.join(prefix, rel)


@check
def cmake_install():
    code, out, err = run(["cmake", "--install", BUILD, "--prefix", prefix],
                         timeout=300)
    assert code == 0, f"cmake --install failed ({code}):\n{out}{err}"
    for rel in ["bin/jbx", "share/man/man1/jbx.1",
                "share/bash-completion/completions/jbx",
                "share/zsh/site-functions/_jbx",
                "share/fish/vendor_completions.d/jbx.fish"]:
        assert os.path.isfile(installed(rel)), f"{rel} not installed"
    assert os.access(installed("bin/jbx"), os.X_OK), "bin/jbx not executable"
    pages = {os.path.basename(p)
             for p in glob.glob(installed("share/man/man1/*.1"))}
    committed = {os.path.basename(p)
                 for p in glob.glob(os.path.join(ROOT, "man", "*.1"))}
    assert pages == committed, f"installed pages {pages}, want {committed}"
    code, out, _ = run([installed("bin/jbx"), "--version"])
    assert code == 0 and out.startswith("jbx "), out


def man(page):
    code, out, err = run(["man", "-M", installed("share/man"), page],
                         env={"MANPAGER": "cat", "MANWIDTH": "80",
                              "LC_ALL": "C.UTF-8"})
    assert code == 0, f"man -M PREFIX/share/man {page}: exit {code}: {err}"
    return out


@check
def man_finds_installed_pages():
    assert "jbx - convert, reformat, query and validate" in man("jbx")
    for line in generate("list").splitlines():
        name, path = line.split(" ", 1)
        if name.startswith("man-"):
            page = os.path.basename(path)[:-2]
            assert f"{page} - " in man(page), f"man {page}"


@check
def bash_loads_installed_completion():
    script = installed("share/bash-completion/completions/jbx")
    code, out, err = run(
        ["bash", "--norc", "--noprofile", "-c",
         f"source {script} && complete -p jbx && COMP_WORDS=(jbx conv) "
         "COMP_CWORD=1 && _jbx && echo ${COMPREPLY[@]}"])
    assert code == 0 and not err, err
    assert "complete -F _jbx jbx" in out and "convert" in out, out
    # bash-completion's loader finds it by command name in the installed
    # location when XDG_DATA_DIRS includes the prefix.
    loader = "/usr/share/bash-completion/bash_completion"
    if os.path.exists(loader):
        code, out, err = run(
            ["bash", "--norc", "--noprofile", "-c",
             f"source {loader}; __load_completion jbx && complete -p jbx"],
            env={"XDG_DATA_DIRS": installed("share"),
                 "BASH_COMPLETION_USER_DIR": os.path.join(prefix, "none")})
        assert code == 0 and "_jbx" in out, f"bash-completion loader: {err}"


@check
def zsh_loads_installed_completion():
    code, out, err = run(
        ["zsh", "-f", "-c",
         f"fpath=({installed('share/zsh/site-functions')} $fpath); "
         f"autoload -Uz compinit && compinit -u -d {prefix}/zcompdump && "
         "print -r -- $_comps[jbx]"],
        env={"HOME": prefix})
    assert code == 0 and out.strip() == "_jbx", (
        f"zsh compinit did not bind _jbx: {out}{err}")


@check
def fish_loads_installed_completion():
    # fish looks in vendor_completions.d of each XDG_DATA_DIRS entry (set up
    # by its startup configuration, so no --no-config; an empty home keeps
    # the user's own configuration out). fish autoloads the completions of
    # commands it finds on PATH.
    home = os.path.join(prefix, "home")
    os.makedirs(home, exist_ok=True)
    code, out, err = run(
        ["fish", "-c", "complete -C 'jbx conv'"],
        env={"XDG_DATA_DIRS": installed("share") + ":/usr/share",
             "PATH": installed("bin") + ":" + os.environ.get("PATH", ""),
             "HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"),
             "XDG_DATA_HOME": os.path.join(home, ".local/share")})
    assert code == 0 and out.startswith("convert\t"), (
        f"fish did not autoload the installed completion: {out}{err}")


run_everything()
