#!/usr/bin/env bash
# help_keys_test.sh POLKA MANPAGE DOC...: `polka --help`, the manual page and `polka help KEY`
# list the same keys (all come from the key table), and every section.key the documents (the
# README, the guide) name is one of them (a renamed key cannot leave the documents behind).
set -euo pipefail
polka=$1 man=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$polka" --help | sed -nE 's/^  ([a-z_]+\.[a-z_0-9]+) +\[.*/\1/p' | sort >"$work/help"
sed -nE 's/^\.B ([a-z_]+\.[a-z_0-9]+)$/\1/p' "$man" | sed 's/\\-/-/g' | sort >"$work/man"
[ "$(wc -l <"$work/help")" -gt 20 ] || { echo "FAIL: --help lists too few keys"; exit 1; }
diff "$work/help" "$work/man" || { echo "FAIL: --help and the man page list different keys"; exit 1; }
"$polka" help $(cat "$work/help") | sed -nE 's/^  ([a-z_]+\.[a-z_0-9]+) +\[.*/\1/p' |
    sort | diff "$work/help" - || { echo "FAIL: polka help KEY differs"; exit 1; }
# Key names in each document: section.key not inside a path, not a file name (run.h5, run.csv).
for doc in "$@"; do
    grep -oE "(^|[^a-z_/.])(run|data|learner|net|fault|async|privacy)\.[a-z_0-9]+" "$doc" |
        sed -E 's/^[^a-z]//' | grep -vE '\.(h5|svm|txt|ini|png|sbatch|sh|py|md)$' | sort -u >"$work/doc"
    [ -s "$work/doc" ] || { echo "FAIL: no keys found in $doc"; exit 1; }
    missing=$(comm -23 "$work/doc" "$work/help")
    [ -z "$missing" ] || { echo "FAIL: $doc names keys polka does not have:" $missing; exit 1; }
    echo "$doc names $(wc -l <"$work/doc") keys"
done
echo "$(wc -l <"$work/help") keys agree"
