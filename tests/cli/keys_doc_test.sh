#!/usr/bin/env bash
# keys_doc_test.sh POLKA_MAN DOC BUILD [--rename KEY]: DOC (docs/keys.md) is what
# `POLKA_MAN --markdown` writes from the key table, else exit 1 with the difference on stdout
# and one line on stderr naming the command that writes DOC again. With --rename KEY the
# comparison runs against a copy of DOC whose row of KEY names KEY_renamed instead: a stale
# DOC, which the check must refuse (ctest keys_doc_stale_fails).
set -euo pipefail
man=$1 doc=$2 build=$3 name=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "${4:-}" = --rename ]; then
    key=$5
    grep -qF "| \`$key\` |" "$doc" || { echo "polka keys doc: no row of $key in $doc" >&2; exit 2; }
    sed "s/^| \`${key//./\\.}\` |/| \`${key}_renamed\` |/" "$doc" >"$work/stale.md"
    doc=$work/stale.md
fi
"$man" --markdown "$work/keys.md"
if ! diff -u "$doc" "$work/keys.md"; then
    echo "polka keys doc: $name is not what the key table gives; regenerate it:" \
        "cmake --build $build --target polka_keys_doc" >&2
    exit 1
fi
echo "$name is current: $(grep -c '^| `[a-z_]*\.' "$doc") keys"
