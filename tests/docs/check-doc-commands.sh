#!/usr/bin/env bash
# The docs against the program's own output: fails when README.md, a page under docs/ or a man page
# (docs/man/*.scd) shows something the binary does not do.
#   - every `gpu-numa-hook [SUBCOMMAND] --flag` names a subcommand and a flag that subcommand's
#     --help lists (global options after the subcommand too), and every `gpu-numa-nri --flag` one
#     gpu-numa-nri's --help lists;
#   - the config keys: the keys the program knows (learnt from its own "allowed here: ..." warning,
#     table by table) are exactly those gpu-numa-hook.toml(5) lists, every key in
#     docs/reference/configuration.md's table is one of them, and each key set to its documented
#     default passes `config check`;
#   - every example line of `config check` in the docs (config /etc/...: line N: KEY: ...) is what
#     the program prints for a file with that line, and `valid` / `absent` read as documented.
#
#   tests/docs/check-doc-commands.sh HOOK [NRI-PLUGIN] [REPO_ROOT]
#
# Prints one line per disagreement (FILE:LINE: ...) and exits 1; 0 when the docs and the program
# agree. Before reading the docs it checks itself on a canary page (a flag the program lacks must be
# flagged, a real one must not), so a checker that finds nothing cannot pass by accident.
set -euo pipefail
hook=${1:?usage: check-doc-commands.sh HOOK [NRI-PLUGIN] [REPO_ROOT]}
nri=${2:-}
root=${3:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null || { echo "FAIL: python3 is needed to read the docs" >&2; exit 2; }
[ -x "$hook" ] || { echo "FAIL: $hook is not an executable" >&2; exit 2; }
hook=$(realpath "$hook"); [ -z "$nri" ] || nri=$(realpath "$nri")
exec python3 - "$hook" "$nri" "$root" <<'PY'
import glob, os, re, subprocess, sys, tempfile

hook, nri, root = sys.argv[1], sys.argv[2], sys.argv[3]
os.chdir(root)
bad = []


def run(argv, **kw):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, **kw)
    return p.returncode, p.stdout, p.stderr


def help_of(path):
    code, out, err = run([hook] + path + ["--help"])
    if code != 0:
        return None
    return out


FLAG = re.compile(r"--[a-z][a-z0-9-]*")
top_help = help_of([])
if top_help is None:
    print("FAIL: %s --help failed" % hook)
    sys.exit(2)
global_flags = set(FLAG.findall(top_help.split("Subcommands:")[0]))


def subcommands_in(help_text):
    if "Subcommands:" not in help_text:
        return []
    names = []
    for line in help_text.split("Subcommands:", 1)[1].splitlines():
        m = re.match(r"^  ([A-Za-z][\w-]*)\b", line)
        if m:
            names.append(m.group(1))
    return names


SUBS = {}  # "config check" -> its flags
for sub in subcommands_in(top_help):
    h = help_of([sub]) or ""
    SUBS[sub] = set(FLAG.findall(h))
    for inner in subcommands_in(h):
        SUBS[sub + " " + inner] = set(FLAG.findall(help_of([sub, inner]) or ""))
if not {"install", "check", "status", "config check"} <= set(SUBS):
    print("FAIL: could not read the subcommands from %s --help (got %s)" % (hook, sorted(SUBS)))
    sys.exit(2)
nri_flags = None
if nri:
    code, out, _ = run([nri, "--help"])
    nri_flags = set(FLAG.findall(out)) if code == 0 else None
    if nri_flags is None:
        print("FAIL: %s --help failed" % nri)
        sys.exit(2)

# `gpu-numa-hook` as a command word: not part of a path, a file name or a log line's prefix.
CMD = re.compile(r"(?<![\w/.-])(gpu-numa-hook|gpu-numa-nri)(?=\s|$)")


def command_tail(line, start):
    """The words of one command line from `start`: up to a backtick, a comment, `&&`, `;`, or a `|`
    outside brackets (a synopsis's alternatives are inside them)."""
    out, depth, i = "", 0, start
    while i < len(line):
        c = line[i]
        if c == "`" or (c == "#" and (i == 0 or line[i - 1] == " ")) or line.startswith("&&", i) or c == ";":
            break
        if c == "[":
            depth += 1
        elif c == "]":
            depth = max(0, depth - 1)
        elif c == "|" and depth == 0:
            break
        out += c
        i += 1
    return out


def check_line(line):
    """Problems with every command on one line, as strings."""
    found = []
    for m in CMD.finditer(line):
        prog = m.group(1)
        words = [w.strip("[]()\"',.:*_") for w in command_tail(line, m.end()).split()]
        words = [w for w in words if w]
        if prog == "gpu-numa-nri":
            if nri_flags is None:
                continue
            for w in words:
                f = w.split("=", 1)[0]
                if FLAG.fullmatch(f) and f not in nri_flags:
                    found.append("gpu-numa-nri %s: no such option in gpu-numa-nri --help" % f)
            continue
        sub = None
        allowed = global_flags | {"--help", "--version"}
        for k, w in enumerate(words):
            f = w.split("=", 1)[0]
            if FLAG.fullmatch(f):
                if f not in allowed:
                    found.append("gpu-numa-hook%s %s: no such option in `gpu-numa-hook%s --help`" %
                                 (" " + sub if sub else "", f, " " + sub if sub else ""))
                continue
            if sub is None and w in SUBS:
                sub = w
                if k + 1 < len(words) and (w + " " + words[k + 1]) in SUBS:
                    sub = w + " " + words[k + 1]
                allowed = global_flags | SUBS[sub] | {"--help"}
    return found


canary = check_line("`gpu-numa-hook check --fix --no-such-flag` and `gpu-numa-hook --host-root /h status --json`; "
                    "gpu-numa-hook[42] gpu-numa-hook.toml(5) /usr/bin/gpu-numa-hook --bogus")
if canary != ["gpu-numa-hook check --no-such-flag: no such option in `gpu-numa-hook check --help`"]:
    print("FAIL: the command checker itself is broken: on its canary line it found %r" % canary)
    sys.exit(2)

pages = ["README.md"] + sorted(glob.glob("docs/**/*.md", recursive=True)) + sorted(glob.glob("docs/man/*.scd"))
commands = 0
for page in pages:
    with open(page, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if page.endswith(".scd"):  # scdoc's *bold* and _underline_ around words
                line = line.replace("\\", "").replace("*", "").replace("_", " ")
            commands += len(CMD.findall(line))
            for problem in check_line(line.rstrip("\n")):
                bad.append("%s:%d: %s" % (page, n, problem))

# --- config keys --------------------------------------------------------------------------------
scratch = tempfile.mkdtemp(prefix="gnh-doccmd.")
cfg_dir = os.path.join(scratch, "etc", "gpu-numa-hook")
os.makedirs(cfg_dir)
cfg = os.path.join(cfg_dir, "config.toml")


def config_check(text):
    if text is None:
        if os.path.exists(cfg):
            os.unlink(cfg)
    else:
        with open(cfg, "w") as f:
            f.write(text)
    code, out, err = run([hook, "--host-root", scratch, "config", "check"])
    return code, out.replace(scratch, ""), err.replace(scratch, "")


def allowed_here(text, key):
    code, out, err = config_check(text)
    m = re.search(re.escape(key) + r": unknown key, ignored \(allowed here: ([^)]*)\)", out)
    return [k.strip() for k in m.group(1).split(",")] if m else None


tables = allowed_here("zz-not-a-key = 1\n", "zz-not-a-key")
if not tables:
    print("FAIL: `config check` on an unknown top-level key printed no 'allowed here' list")
    sys.exit(2)
program_keys = {}
for t in tables:
    if t == "topology":  # its one key is the array of tables [[topology.gpu]]: learn that entry's keys
        ks = allowed_here("[[topology.gpu]]\nminor = 0\nzz-not-a-key = 1\n", "topology.gpu[0].zz-not-a-key")
        t = "topology.gpu"
    else:
        ks = allowed_here("[%s]\nzz-not-a-key = 1\n" % t, t + ".zz-not-a-key")
    if ks is None:
        bad.append("config: could not learn the keys of [%s] from `config check`" % t)
        continue
    program_keys[t] = set(ks)

# gpu-numa-hook.toml(5): "*[table] key* = default, *key* = default" and "*[[topology.gpu]]* a | b, c"
man_keys = {}
man = "docs/man/gpu-numa-hook.toml.5.scd"
with open(man, encoding="utf-8") as f:
    section = ""
    for n, line in enumerate(f, 1):
        if line.startswith("# "):
            section = line.strip()
        if section != "# KEYS":
            continue
        m = re.match(r"^\*\[\[topology\.gpu\]\]\* (.*)$", line)
        if m:
            man_keys.setdefault("topology.gpu", set()).update(k.strip() for k in re.split(r"[|,]", m.group(1)))
            continue
        m = re.match(r"^\*\[([a-z]+)\] ", line)
        if m:
            man_keys.setdefault(m.group(1), set()).update(re.findall(r"\*(?:\[[a-z]+\] )?([a-z][a-z0-9-]*)\* =", line))
for t in sorted(set(program_keys) | set(man_keys)):
    p, d = program_keys.get(t, set()), man_keys.get(t, set())
    for k in sorted(p - d):
        bad.append("%s: [%s] %s: the program knows this key; the man page does not list it" % (man, t, k))
    for k in sorted(d - p):
        bad.append("%s: [%s] %s: the man page lists it; the program calls it an unknown key" % (man, t, k))

# docs/reference/configuration.md's table: each key, set to its documented default, is valid.
ref = "docs/reference/configuration.md"
keys_checked = 0
with open(ref, encoding="utf-8") as f:
    for n, line in enumerate(f, 1):
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("| `") else []
        if len(cells) < 2:
            continue
        keys = re.findall(r"`([a-z]+\.[a-z][a-z0-9-]*)`", cells[0])
        defaults = re.findall(r"`([^`]*)`", cells[1])
        if not keys:
            continue  # another table on the page
        if len(keys) != len(defaults):
            bad.append("%s:%d: %d keys but %d defaults in the row" % (ref, n, len(keys), len(defaults)))
            continue
        for key, default in zip(keys, defaults):
            table, name = key.split(".", 1)
            if name not in program_keys.get(table, set()):
                bad.append("%s:%d: %s: the program calls it an unknown key" % (ref, n, key))
                continue
            value = default if re.fullmatch(r'-?\d+|true|false|\[.*\]|".*"', default) else '"%s"' % default
            code, out, err = config_check("[%s]\n%s = %s\n" % (table, name, value))
            keys_checked += 1
            if code != 0:
                bad.append("%s:%d: %s = %s (the documented default): config check exit %d: %s" %
                           (ref, n, key, value, code, (out + err).strip()))

# --- example lines of `config check` ------------------------------------------------------------
EXAMPLE = re.compile(r"^\s+(config /etc/gpu-numa-hook/config\.toml: line (\d+): ([a-z]+)\.([a-z][a-z0-9-]*): (.*))$")
examples = []
for page in pages:
    with open(page, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = EXAMPLE.match(line.rstrip("\n"))
            if m:
                examples.append((page, n) + m.groups())
for page, n, text, lineno, table, key, rest in examples:
    lineno = int(lineno)
    if rest.startswith("unknown key, ignored"):
        value = "1"
    else:
        v = re.match(r"'([^']*)' is not one of", rest)
        if not v or lineno < 2:
            bad.append("%s:%d: cannot build a file for this example line; add its kind to the checker" % (page, n))
            continue
        value = '"%s"' % v.group(1)
    body = ["[%s]" % table] + ["# filler"] * (lineno - 2) + ["%s = %s" % (key, value)]
    code, out, err = config_check("\n".join(body) + "\n")
    if text not in out.splitlines():
        bad.append("%s:%d: the docs show\n    %s\n  config check printed\n    %s" %
                   (page, n, text, (out + err).strip().replace("\n", "\n    ")))
if not examples:
    bad.append("no `config check` example line found in the docs (the checker lost them)")
for text, want in ((None, "config /etc/gpu-numa-hook/config.toml: absent: the built-in defaults apply"),
                   ("[policy]\non-error = \"refuse\"\n", "config /etc/gpu-numa-hook/config.toml: valid")):
    code, out, err = config_check(text)
    if out.strip() != want or code != 0:
        bad.append("%s: `config check` should print '%s' (exit 0); printed %r (exit %d)" % (ref, want, out + err, code))

import shutil
shutil.rmtree(scratch, ignore_errors=True)
for b in bad:
    print(b)
if bad:
    print("FAIL: %d disagreement(s) between the docs and the program" % len(bad))
    sys.exit(1)
print("PASS: %d command lines in %d pages use only subcommands and options the program has; the man page lists "
      "the program's %d config keys; %d documented defaults pass config check; %d example lines match" %
      (commands, len(pages), sum(len(v) for v in program_keys.values()), keys_checked, len(examples)))
PY
