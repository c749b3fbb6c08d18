#!/usr/bin/env bash
# Makes web/src/styles/fonts/*.woff2 (issue 32): Source Sans 3's Latin faces of
# @fontsource/source-sans-3 5.3.0, cut to what English and Canadian French
# pages and people's names need — Basic Latin, Latin-1 (every accented
# letter of a name), Œ œ, dashes, typographic quotes, the bullet, the
# ellipsis, the no-break and thin spaces, the euro
# and trade mark signs — with kerning and the standard ligatures and no other
# OpenType feature (fractions, numerators, combining-mark placement are not
# used). Needs Debian's fonttools (pyftsubset) and npm; the result is
# committed, so a build never runs this. fonts.css's unicode-range lists the
# same set: keep the two together (a test compares them).
set -euo pipefail
cd "$(dirname "$0")/.."
UNICODES='U+0020-007E,U+00A0-00FF,U+0152-0153,U+2009,U+200B,U+2013-2014,U+2018-2019,U+201C-201D,U+2022,U+2026,U+20AC,U+2122,U+FEFF'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent @fontsource/source-sans-3@5.3.0 >/dev/null && tar xzf fontsource-source-sans-3-5.3.0.tgz)
for weight in 400 600; do
  name=source-sans-3-latin-$weight-normal.woff2
  pyftsubset "$tmp/package/files/$name" --unicodes="$UNICODES" --flavor=woff2 \
    --layout-features='kern,liga' --name-IDs='*' --name-languages='*' \
    --output-file="src/styles/fonts/$name"
done
ls -l src/styles/fonts/*.woff2
