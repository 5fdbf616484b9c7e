"""Paired statistics for A versus B (SPEC §8), numpy and ``math`` only; tested against
scipy and statsmodels, which are never imported at run time.

* ``intervals``  the normal quantile, Wilson's interval, the minimum detectable difference
* ``bootstrap``  the seeded draws every metric shares; the paired bootstrap interval
* ``tests``      exact McNemar, the sign-flip test and its bound, Holm's adjustment
* ``paired``     all of them for one metric or many (``PairedSummary``)
"""

from graders.stats.bootstrap import paired_bootstrap, resample_indices, sign_flip_bits
from graders.stats.intervals import mcnemar_mdd, min_detectable_difference, normal_quantile, wilson_interval
from graders.stats.paired import PairedSummary, summarize_pair, summarize_pairs
from graders.stats.tests import P_FLOOR, holm_adjust, mcnemar_exact, sign_flip_bound, sign_flip_test

__all__ = [
    "P_FLOOR", "PairedSummary", "holm_adjust", "mcnemar_exact", "mcnemar_mdd", "min_detectable_difference",
    "normal_quantile", "paired_bootstrap", "resample_indices", "sign_flip_bits", "sign_flip_bound",
    "sign_flip_test", "summarize_pair", "summarize_pairs", "wilson_interval",
]
