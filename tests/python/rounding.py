"""The rounding terms the Python checks' tolerances are derived from (docs/design.md, "Tests");
tests/lib/rounding.h has them for C."""
import sys

U = sys.float_info.epsilon / 2  # u, the unit roundoff


def gamma(n):
    """γ_n = n·u / (1 − n·u) [Higham02, §3.1]: n roundings, relative."""
    return n * U / (1 - n * U)
