#!/usr/bin/env bash
# Fails when README.md or a page under docs/ names a repository path that does not exist: a file
# moved or renamed and the docs kept the old name. Looked at: every word that starts with one of the
# repository's top-level folders (hook/, oci-spec/, tests/, examples/, config/, docs/, bench/,
# packaging/, cmake/, .ci/), in backticks or not, and every relative Markdown link (resolved from
# the page's folder). A trailing :LINE or :LINE-LINE is allowed, {a,b} is expanded, and * / ? are
# globs that must match something; a link's #anchor must be a heading of the page it names. Host
# paths (/etc/..., /usr/..., /sys/...) are not repository paths and are skipped, as are words with
# placeholders (<id>, $VAR).
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


def exists(rel, base, repo):
    for p in expand_braces(rel):
        full = os.path.normpath(os.path.join(base, p))
        if not full.startswith(repo + os.sep) and full != repo:
            return True  # a link out of the repository is not ours to check
        if any(c in p for c in "*?"):
            if not glob.glob(full, recursive=True):
                return False
        elif not os.path.exists(full):
            return False
    return True


def anchors_of(path):
    """GitHub's heading ids of a Markdown page: lower case, punctuation dropped, spaces to '-'."""
    ids, seen, in_fence = set(), {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.lstrip().startswith("```"):
                in_fence = not in_fence
            m = None if in_fence else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            ids.add(slug if n == 0 else "%s-%d" % (slug, n))
    return ids


def clean(tok):
    tok = tok.rstrip(".,;:)'\"`")
    tok = LINE_SUFFIX.sub("", tok)
    return tok


def missing_in(text, page_dir, repo):
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
            if not exists(tok, repo, repo):
                found.append((n, tok))
        if in_fence:
            continue
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
                continue  # a URL, an anchor on the page, or a host path
            target, _, anchor = target.partition("#")
            target = LINE_SUFFIX.sub("", target)
            if target and not exists(target, page_dir, repo):
                found.append((n, target))
            elif anchor and target.endswith(".md") and not any(c in target for c in "*?{"):
                if anchor not in anchors_of(os.path.normpath(os.path.join(page_dir, target))):
                    found.append((n, "%s#%s (no such heading)" % (target, anchor)))
    return found


# The checker checks itself first, on a scratch repository of two files.
import tempfile
with tempfile.TemporaryDirectory() as scratch:
    os.makedirs(os.path.join(scratch, "hook", "core", "base"))
    open(os.path.join(scratch, "hook", "core", "base", "x_test.cc"), "w").close()
    with open(os.path.join(scratch, "page.md"), "w") as f:
        f.write("# Page\n\n## Install `it` (now)\n")
    canary = "See `hook/no-such-file.cc:12` and [x](no-such-page.md); `hook/core/*/*_test.cc`, " \
             "[p](page.md), [i](page.md#install-it-now), [y](page.md#no-such-heading), " \
             "hook/core/base/x_test.cc:3 and /etc/hook/x.\n"
    got = sorted(p for _, p in missing_in(canary, scratch, scratch))
if got != ["hook/no-such-file.cc", "no-such-page.md", "page.md#no-such-heading (no such heading)"]:
    print("FAIL: the doc-path checker itself is broken: on its canary page it found %r" % got)
    sys.exit(2)

pages = ["README.md"] + sorted(glob.glob("docs/**/*.md", recursive=True))
bad = 0
for page in pages:
    with open(os.path.join(root, page), encoding="utf-8") as f:
        text = f.read()
    for n, p in sorted(set(missing_in(text, os.path.dirname(os.path.join(root, page)), root))):
        print("%s:%d: %s does not exist" % (page, n, p))
        bad += 1
if bad:
    print("FAIL: %d repository path(s) named in the docs do not exist (%d pages read)" % (bad, len(pages)))
    sys.exit(1)
print("PASS: every repository path named in README.md and docs/ exists (%d pages read)" % len(pages))
PY
