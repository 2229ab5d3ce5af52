#!/usr/bin/env bash
# The docs render as written: README.md, CHANGELOG.md, THIRD-PARTY.md and docs/*.md through
# cmark-gfm (GitHub's CommonMark). Fails when a code block swallows what should be outside
# it (a section heading, an image, a table row, or a fence line with text after it, the
# usual cause), or when a local link or image does not name a file in the repository.
# Usage: test_docs_render.sh [FILE.md...] (default: the files above).
set -euo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
command -v cmark-gfm >/dev/null || {
  echo "FAIL: cmark-gfm is not installed (make deps)"
  exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ $# -gt 0 ]; then
  files=("$@")
else
  files=("$src/README.md" "$src/CHANGELOG.md" "$src/THIRD-PARTY.md" "$src"/docs/*.md)
fi
status=0
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  cmark-gfm --unsafe -e table -e autolink -e strikethrough "$f" >"$tmp/page.html"
  python3 - "$f" "$tmp/page.html" "$src" <<'EOF' || status=1
import html.parser, os, re, sys, urllib.parse

md, page, root = sys.argv[1], sys.argv[2], os.path.realpath(sys.argv[3])
name = os.path.relpath(md, root)
problems = []

class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.in_pre = 0
        self.code = []
        self.blocks = []
        self.refs = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "pre":
            self.in_pre += 1
            self.code = []
        elif tag == "a" and a.get("href"):
            self.refs.append(("link", a["href"]))
        elif tag == "img" and a.get("src"):
            self.refs.append(("image", a["src"]))

    def handle_endtag(self, tag):
        if tag == "pre" and self.in_pre:
            self.in_pre -= 1
            self.blocks.append("".join(self.code))

    def handle_data(self, data):
        if self.in_pre:
            self.code.append(data)

p = Page()
p.feed(open(page, encoding="utf-8").read())

# What never belongs in a code block of these docs. A single '#' is a shell comment, so only
# '##'..'######' count as headings.
swallowed = [
    (re.compile(r"^#{2,6} \S"), "a heading"),
    (re.compile(r"^!\[[^\]]*\]\([^)]*\)"), "an image"),
    (re.compile(r"^\|[-:| ]+\|\s*$"), "a table"),
    (re.compile(r"^ {0,3}(```|~~~)\s*\S.*\s\S"), "a fence line with text after it"),
]
for block in p.blocks:
    for line in block.splitlines():
        for rx, what in swallowed:
            if rx.search(line):
                problems.append(f"{what} inside a code block: {line[:100]!r}")

for kind, ref in p.refs:
    url = urllib.parse.urlsplit(ref)
    if url.scheme or ref.startswith("#") or ref.startswith("//"):
        continue
    target = os.path.realpath(os.path.join(os.path.dirname(md), urllib.parse.unquote(url.path)))
    if not (target == root or target.startswith(root + os.sep)):
        problems.append(f"{kind} '{ref}' points outside the repository")
    elif not os.path.exists(target):
        problems.append(f"{kind} '{ref}' names no file ({os.path.relpath(target, root)})")

for pr in problems:
    print(f"FAIL {name}: {pr}")
if not problems:
    print(f"ok {name}")
sys.exit(1 if problems else 0)
EOF
done
exit $status
