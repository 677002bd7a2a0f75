#!/usr/bin/env bash
# The documentation's links and the front page's size (issue 14: README is
# a front page of at most 250 lines, the manual lives in docs/). Fails on:
# a relative link in README.md, BENCHMARKS.md or docs/*.md to a file that
# does not exist; a link's #anchor that names no heading of its target (the
# slugs GitHub makes from headings); an image in README.md that is missing
# or over 300 KB; README.md over 250 lines; README's first code block
# without the two commands (scripts/run.sh, scripts/test.sh) that a fresh
# machine starts with.
set -u
S=${DRAPE_SOURCE_DIR:?}
cd "$S" || exit 1
fail=0

n=$(wc -l <README.md)
if ((n > 250)); then
  echo "FAIL README.md has $n lines (at most 250: move the details to docs/)"; fail=1
else
  echo "ok   README.md has $n lines (<= 250)"
fi

python3 - README.md BENCHMARKS.md docs/*.md <<'PY' || fail=1
import os, re, sys, unicodedata

def slug(title):
    # GitHub: lower case, drop punctuation (keep letters, digits, '-', '_',
    # spaces), spaces become '-'. Inline code and links keep their text.
    t = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', title)
    t = t.replace('`', '').strip().lower()
    out = []
    for ch in t:
        cat = unicodedata.category(ch)
        if ch in '-_' or ch == ' ' or cat[0] in 'LN':
            out.append('-' if ch == ' ' else ch)
    return ''.join(out)

def prose(path):
    """Lines outside fenced code blocks, with inline code removed."""
    lines, fenced = [], False
    for line in open(path, encoding='utf-8'):
        if line.lstrip().startswith('```'):
            fenced = not fenced
            continue
        lines.append('' if fenced else line)
    return lines

anchors_cache = {}
def anchors(path):
    if path not in anchors_cache:
        seen, found = {}, set()
        for line in prose(path):
            m = re.match(r'^(#{1,6})\s+(.*?)\s*#*\s*$', line)
            if not m:
                continue
            s = slug(m.group(2))
            k = seen.get(s, 0)
            seen[s] = k + 1
            found.add(s if k == 0 else f'{s}-{k}')
        anchors_cache[path] = found
    return anchors_cache[path]

bad = checked = 0
link = re.compile(r'(!?)\[[^\]]*\]\(([^)\s]+)\)')
for doc in sys.argv[1:]:
    base = os.path.dirname(doc)
    for no, line in enumerate(prose(doc), 1):
        line = re.sub(r'`[^`]*`', '', line)
        for img, target in link.findall(line):
            if re.match(r'^[a-z]+:', target):      # http:, https:, mailto:
                continue
            checked += 1
            path, _, frag = target.partition('#')
            full = os.path.normpath(os.path.join(base, path)) if path else doc
            where = f'{doc}:{no}: ({target})'
            if not os.path.exists(full):
                print(f'FAIL {where}: {full} does not exist'); bad += 1; continue
            if frag and full.endswith('.md') and frag not in anchors(full):
                print(f'FAIL {where}: no heading #{frag} in {full}'); bad += 1; continue
            if img and doc == 'README.md' and os.path.getsize(full) > 300 * 1024:
                print(f'FAIL {where}: image is {os.path.getsize(full)} bytes (at most 300 KB)'); bad += 1
print(f'{"ok  " if bad == 0 else "FAIL"} {checked} relative links in {len(sys.argv) - 1} files, {bad} broken')
sys.exit(1 if bad else 0)
PY

# The two commands come first: the first code block of README.md.
first=$(awk '/^```/{if (inblk) exit; inblk=1; next} inblk' README.md)
if grep -q '^bash scripts/run.sh' <<<"$first" && grep -q '^bash scripts/test.sh' <<<"$first"; then
  echo "ok   README's first code block holds scripts/run.sh and scripts/test.sh"
else
  echo "FAIL README's first code block lacks 'bash scripts/run.sh' or 'bash scripts/test.sh'"; fail=1
fi

exit $fail
