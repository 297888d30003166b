#!/usr/bin/env sh
# er_p.sh N: the edge probability of an Erdős–Rényi graph of N nodes with mean degree
# max(4, 1.25 ln N), at most N − 1. An ER graph is connected (with high probability) once
# its mean degree passes ln N; mean degree 4 alone is connected only up to N ≈ 100.
awk -v n="$1" 'BEGIN { d = 1.25 * log(n); if (d < 4) d = 4; if (d > n - 1) d = n - 1;
                       printf "%.6g\n", d / (n - 1) }'
