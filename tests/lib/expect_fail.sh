#!/bin/sh
# expect_fail.sh REGEX COMMAND...: passes when COMMAND exits non-zero within 60 s and its
# standard error has exactly one line from polka (starting "polka"), matching REGEX (an
# extended regular expression). Lines mpirun adds about the failed job are not counted.
regex=$1
shift
err=$(mktemp)
timeout 60 "$@" >/dev/null 2>"$err"
code=$?
lines=$(grep -c '^polka' "$err")
status=0
if [ "$code" -eq 0 ]; then echo "FAIL: exit code 0"; status=1; fi
if [ "$code" -eq 124 ]; then echo "FAIL: timed out (hang)"; status=1; fi
if ! grep -Eq -- "$regex" "$err"; then echo "FAIL: stderr does not match '$regex'"; status=1; fi
if [ "$lines" -ne 1 ]; then echo "FAIL: $lines polka lines on stderr, expected one message"; status=1; fi
echo "--- exit $code, stderr:"
cat "$err"
rm -f "$err"
exit $status
