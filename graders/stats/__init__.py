"""Paired statistics for A versus B (SPEC §8), numpy and ``math`` only; tested against
scipy and statsmodels, which are never imported at run time.

* ``intervals``  the normal and Student's t quantiles, Wilson's interval, the minimum detectable difference
* ``binary``     pass-or-fail intervals: Tango's score interval of a paired difference, and
                 with repeats the design effect, Rao-Scott's adjustment and clustered pass rates
* ``bootstrap``  the seeded draws every metric shares; the paired (percentile) bootstrap interval
* ``bca``        the expanded percentile and BCa bootstrap intervals
* ``tests``      exact McNemar, the sign-flip test (its Monte Carlo error, more flips near a
                 threshold) and its bound, Holm's adjustment
* ``corpus``     the paired bootstrap of a corpus score's difference (sacrebleu's --paired-bs)
* ``paired``     all of them for one metric or many (``PairedSummary``)
"""

from graders.stats.bca import bootstrap_interval
from graders.stats.binary import clustered_pass_rate, paired_rate_interval, tango_interval, wilson_effective
from graders.stats.bootstrap import paired_bootstrap, resample_indices, sign_flip_bits
from graders.stats.corpus import paired_corpus_bootstrap
from graders.stats.intervals import (
    mcnemar_mdd,
    min_detectable_difference,
    normal_quantile,
    t_quantile,
    wilson_interval,
)
from graders.stats.paired import PairedSummary, summarize_pair, summarize_pairs
from graders.stats.tests import P_FLOOR, holm_adjust, mcnemar_exact, sign_flip_bound, sign_flip_test

__all__ = [
    "P_FLOOR", "PairedSummary", "bootstrap_interval", "clustered_pass_rate", "holm_adjust", "mcnemar_exact",
    "mcnemar_mdd", "min_detectable_difference", "normal_quantile", "paired_bootstrap", "paired_corpus_bootstrap",
    "paired_rate_interval", "resample_indices", "sign_flip_bits", "sign_flip_bound", "sign_flip_test",
    "summarize_pair", "summarize_pairs", "t_quantile", "tango_interval", "wilson_effective", "wilson_interval",
]
