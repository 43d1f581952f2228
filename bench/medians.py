# SPDX-License-Identifier: GPL-2.0
"""The statistics and number format the bench reports share."""
import statistics


def med(xs):
    """The median of the values that are not None, or None."""
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, spec='.1f'):
    """x formatted, or a dash for None."""
    return '—' if x is None else format(x, spec)
