#!/usr/bin/env bash
# help_keys_test.sh POLKA MANPAGE README: `polka --help`, the manual page and `polka help KEY`
# list the same keys (all come from the key table), and every section.key the README names
# is one of them (a renamed key cannot leave the README behind).
set -euo pipefail
polka=$1 man=$2 readme=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$polka" --help | sed -nE 's/^  ([a-z_]+\.[a-z_0-9]+) +\[.*/\1/p' | sort >"$work/help"
sed -nE 's/^\.B ([a-z_]+\.[a-z_0-9]+)$/\1/p' "$man" | sed 's/\\-/-/g' | sort >"$work/man"
[ "$(wc -l <"$work/help")" -gt 20 ] || { echo "FAIL: --help lists too few keys"; exit 1; }
diff "$work/help" "$work/man" || { echo "FAIL: --help and the man page list different keys"; exit 1; }
"$polka" help $(cat "$work/help") | sed -nE 's/^  ([a-z_]+\.[a-z_0-9]+) +\[.*/\1/p' |
    sort | diff "$work/help" - || { echo "FAIL: polka help KEY differs"; exit 1; }
# Key names in the README: section.key not inside a path, not a file name (run.h5, run.csv).
grep -oE "(^|[^a-z_/.])(run|data|learner|net|fault)\.[a-z_0-9]+" "$readme" | sed -E 's/^[^a-z]//' |
    grep -vE '\.(h5|svm|txt|ini|png|sbatch|sh|py)$' | sort -u >"$work/readme"
[ -s "$work/readme" ] || { echo "FAIL: no keys found in the README"; exit 1; }
missing=$(comm -23 "$work/readme" "$work/help")
[ -z "$missing" ] || { echo "FAIL: the README names keys polka does not have:" $missing; exit 1; }
echo "$(wc -l <"$work/help") keys agree; the README names $(wc -l <"$work/readme") of them"
