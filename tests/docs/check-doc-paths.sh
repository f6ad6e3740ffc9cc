#!/usr/bin/env bash
# Fails when README.md or a page under docs/ names a repository path that does not exist: a file
# moved or renamed and the docs kept the old name. Looked at: every word that starts with one of the
# repository's top-level folders (hook/, oci-spec/, tests/, examples/, config/, docs/, bench/,
# packaging/, cmake/, .ci/), in backticks or not, and every relative Markdown link (resolved from
# the page's folder). A trailing :LINE or :LINE-LINE is allowed, {a,b} is expanded, and * / ? are
# globs that must match something. Host paths (/etc/..., /usr/..., /sys/...) are not repository
# paths and are skipped, as are words with placeholders (<id>, $VAR).
#
#   tests/docs/check-doc-paths.sh [REPO_ROOT]      # default: the repository holding this script
#
# Prints one line per missing path (FILE:LINE: PATH) and exits 1; exits 0 when every path exists.
# Before looking at the docs it checks itself on a page with a known-missing path (it must flag it)
# and a known-present one (it must not), so a checker that finds nothing cannot pass by accident.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"
command -v python3 >/dev/null || { echo "FAIL: python3 is needed to read the docs" >&2; exit 2; }

exec python3 - "$root" <<'PY'
import glob, os, re, sys

root = sys.argv[1]
TOP = ("hook", "oci-spec", "tests", "examples", "config", "docs", "bench", "packaging", "cmake", ".ci")
# A repository path as a word: not preceded by a path or word character (so /usr/share/doc/...,
# /tmp/x/tests/... and build/bench/... are not taken), then a top-level folder and a slash.
WORD = re.compile(r"(?<![\w./~$-])((?:%s)/[\w.*?{},/+@-]*)" % "|".join(re.escape(t) for t in TOP))
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
LINE_SUFFIX = re.compile(r":\d+(?:-\d+)?$")


def expand_braces(p):
    m = re.search(r"\{([^{}]*)\}", p)
    if not m:
        return [p]
    out = []
    for alt in m.group(1).split(","):
        out += expand_braces(p[:m.start()] + alt + p[m.end():])
    return out


def exists(rel, base):
    for p in expand_braces(rel):
        full = os.path.normpath(os.path.join(base, p))
        if not full.startswith(root + os.sep) and full != root:
            return True  # a link out of the repository is not ours to check
        if any(c in p for c in "*?"):
            if not glob.glob(full, recursive=True):
                return False
        elif not os.path.exists(full):
            return False
    return True


def clean(tok):
    tok = tok.rstrip(".,;:)'\"`")
    tok = LINE_SUFFIX.sub("", tok)
    return tok


def missing_in(text, page_dir):
    """(line number, path) for every repository path the text names that does not exist."""
    found = []
    in_fence = False
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        for m in WORD.finditer(line):
            tok = clean(m.group(1))
            if "/" not in tok or tok.endswith("/-") or re.search(r"[<>$]", tok):
                continue
            if not exists(tok, root):
                found.append((n, tok))
        if in_fence:
            continue
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
                continue  # a URL, an anchor on the page, or a host path
            target = LINE_SUFFIX.sub("", target.split("#", 1)[0])
            if target and not exists(target, page_dir):
                found.append((n, target))
    return found


# The checker checks itself first.
canary = "See `hook/no-such-file.cc:12` and [x](no-such-page.md); `hook/core/*/*_test.cc`, " \
         "[contract](%s), docs/ and /etc/hook/x.\n" % os.path.relpath(os.path.join(root, "README.md"), root)
got = sorted(p for _, p in missing_in(canary, root))
if got != ["hook/no-such-file.cc", "no-such-page.md"]:
    print("FAIL: the doc-path checker itself is broken: on its canary page it found %r" % got)
    sys.exit(2)

pages = ["README.md"] + sorted(glob.glob("docs/**/*.md", recursive=True))
bad = 0
for page in pages:
    with open(os.path.join(root, page), encoding="utf-8") as f:
        text = f.read()
    for n, p in sorted(set(missing_in(text, os.path.dirname(os.path.join(root, page))))):
        print("%s:%d: %s does not exist" % (page, n, p))
        bad += 1
if bad:
    print("FAIL: %d repository path(s) named in the docs do not exist (%d pages read)" % (bad, len(pages)))
    sys.exit(1)
print("PASS: every repository path named in README.md and docs/ exists (%d pages read)" % len(pages))
PY
