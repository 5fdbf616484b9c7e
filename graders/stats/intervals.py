"""Intervals and what an n can detect: the normal quantile, Wilson's interval of a pass
rate, and the minimum detectable difference (numpy and ``math`` only).

* ``normal_quantile``       the standard normal quantile (Wichura's AS 241, ~1e-16)
* ``wilson_interval``       Wilson score interval of a pass rate
* ``min_detectable_difference``, ``mcnemar_mdd``   what this n detects with 80% power
"""

from __future__ import annotations

import math
import operator
from typing import Any

# Normal quantile: Wichura (1988), Algorithm AS 241 PPND16, Appl. Statist. 37(3) 477-484.
# Coefficients lowest order first; each denominator's constant term is 1.
_AS241_A = (3.3871328727963666080e0, 1.3314166789178437745e2, 1.9715909503065514427e3,
            1.3731693765509461125e4, 4.5921953931549871457e4, 6.7265770927008700853e4,
            3.3430575583588128105e4, 2.5090809287301226727e3)


_AS241_B = (1.0, 4.2313330701600911252e1, 6.8718700749205790830e2, 5.3941960214247511077e3,
            2.1213794301586595867e4, 3.9307895800092710610e4, 2.8729085735721942674e4,
            5.2264952788528545610e3)


_AS241_C = (1.42343711074968357734e0, 4.63033784615654529590e0, 5.76949722146069140550e0,
            3.64784832476320460504e0, 1.27045825245236838258e0, 2.41780725177450611770e-1,
            2.27238449892691845833e-2, 7.74545014278341407640e-4)


_AS241_D = (1.0, 2.05319162663775882187e0, 1.67638483018380384940e0, 6.89767334985100004550e-1,
            1.48103976427480074590e-1, 1.51986665636164571966e-2, 5.47593808499534494600e-4,
            1.05075007164441684324e-9)


_AS241_E = (6.65790464350110377720e0, 5.46378491116411436990e0, 1.78482653991729133580e0,
            2.96560571828504891230e-1, 2.65321895265761230930e-2, 1.24266094738807843860e-3,
            2.71155556874348757815e-5, 2.01033439929228813265e-7)


_AS241_F = (1.0, 5.99832206555887937690e-1, 1.36929880922735805310e-1, 1.48753612908506148525e-2,
            7.86869131145613259100e-4, 1.84631831751005468180e-5, 1.42151175831644588870e-7,
            2.04426310338993978564e-15)


def _horner(coefs: tuple[float, ...], x: float) -> float:
    acc = 0.0
    for c in reversed(coefs):
        acc = acc * x + c
    return acc


def normal_quantile(p: float) -> float:
    """Standard normal quantile, the x with Phi(x) = p (AS 241 PPND16, ~1e-16 relative).

    p = 0 gives -inf and p = 1 gives inf; p outside [0, 1] or NaN raises ValueError.
    """
    p = float(p)
    if not 0.0 <= p <= 1.0:  # NaN fails too
        raise ValueError(f"p must be in [0, 1], got {p!r}")
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    q = p - 0.5
    if abs(q) <= 0.425:
        r = 0.180625 - q * q
        return q * _horner(_AS241_A, r) / _horner(_AS241_B, r)
    r = math.sqrt(-math.log(p if q < 0.0 else 1.0 - p))
    if r <= 5.0:
        r -= 1.6
        x = _horner(_AS241_C, r) / _horner(_AS241_D, r)
    else:
        r -= 5.0
        x = _horner(_AS241_E, r) / _horner(_AS241_F, r)
    return -x if q < 0.0 else x


def _z_two_sided(confidence: float) -> float:
    """z with P(|Z| <= z) = confidence (as scipy: ndtri(0.5 + 0.5 * confidence))."""
    return normal_quantile(0.5 + 0.5 * confidence)


def _check_confidence(confidence: float, name: str = "confidence") -> float:
    confidence = float(confidence)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"{name} must be strictly between 0 and 1, got {confidence!r}")
    return confidence


def _count(value: Any, name: str) -> int:
    try:
        value = operator.index(value)
    except TypeError:
        raise ValueError(f"{name} must be a whole number, got {value!r}") from None
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value


MAX_COUNT = 2**53  # the largest n of a pass rate: every count up to it is a float exactly


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of k passes out of n, without continuity correction.

    The interval scipy gives as ``binomtest(k, n).proportion_ci(method="wilson")``
    (Newcombe 1998, method 3); k = 0 gives a lower end of exactly 0 and k = n an upper
    end of exactly 1. n = 0 gives (0.0, 1.0): with no cases every rate is possible.
    """
    k, n = _count(k, "k"), _count(n, "n")
    if n > MAX_COUNT:  # past 2**53 a float no longer holds every count, and past 1e308 none
        shown = f"{n:,}" if n < 10**24 else f"a number of {len(str(n))} digits"
        raise ValueError(f"n must be at most {MAX_COUNT:,} (2**53), got {shown}")
    if k > n:
        raise ValueError(f"k must be <= n, got k = {k}, n = {n}")
    confidence = _check_confidence(confidence)
    if n == 0:
        return (0.0, 1.0)
    z2 = _z_two_sided(confidence) ** 2
    center = (k + z2 / 2) / (n + z2)
    delta = math.sqrt(z2) / (n + z2) * math.sqrt(k * (n - k) / n + z2 / 4)
    low = 0.0 if k == 0 else max(0.0, center - delta)
    high = 1.0 if k == n else min(1.0, center + delta)
    return (low, high)


def _check_power(alpha: float, power: float) -> tuple[float, float]:
    return _check_confidence(alpha, "alpha"), _check_confidence(power, "power")


def min_detectable_difference(sd_diff: float, n: int, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """(z_{1-alpha/2} + z_power) * sd_diff / sqrt(n): the smallest true mean difference a
    two-sided level-alpha test on n paired cases detects with the given power (normal
    approximation, plug-in sd). n < 2 gives inf."""
    n = _count(n, "n")
    alpha, power = _check_power(alpha, power)
    if n < 2:
        return math.inf
    return (normal_quantile(1 - alpha / 2) + normal_quantile(power)) * float(sd_diff) / math.sqrt(n)


def mcnemar_mdd(discordance: float, n: int, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest pass-rate difference (a fraction; x100 for points) McNemar's test detects.

    Connor (1987): n = (z_a sqrt(psi) + z_b sqrt(psi - d**2))**2 / d**2, with psi the
    discordance rate (b + c) / n, z_a = z_{1-alpha/2}, z_b = z_power, solved for d:
    d = sqrt(psi) (z_a sqrt(n) + z_b sqrt(n - z_a**2 + z_b**2)) / (n + z_b**2). For large n
    this is (z_a + z_b) sqrt(psi / n). psi = 0 gives 0.0; n <= z_a**2 (n < 4 at 5%) inf.
    """
    n = _count(n, "n")
    alpha, power = _check_power(alpha, power)
    psi = float(discordance)
    if not 0.0 <= psi <= 1.0:
        raise ValueError(f"discordance must be in [0, 1], got {discordance!r}")
    z_a, z_b = normal_quantile(1 - alpha / 2), normal_quantile(power)
    if n <= z_a * z_a:
        return math.inf
    if psi == 0.0:
        return 0.0
    return math.sqrt(psi) * (z_a * math.sqrt(n) + z_b * math.sqrt(n - z_a * z_a + z_b * z_b)) / (n + z_b * z_b)


def _t_two_sided_mass(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with whole ``df`` >= 1, t >= 0: the finite series of
    Abramowitz & Stegun 26.7.3 (odd df) and 26.7.4 (even df)."""
    theta = math.atan(t / math.sqrt(df))
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2:  # odd: (2/pi) (theta + sin cos (1 + 2/3 cos^2 + (2 4)/(3 5) cos^4 + ...))
        if df == 1:
            return 2.0 * theta / math.pi
        term, total = 1.0, 1.0
        for k in range(1, (df - 3) // 2 + 1):
            term *= (2 * k) / (2 * k + 1) * c2
            total += term
        return 2.0 / math.pi * (theta + s * math.cos(theta) * total)
    term, total = 1.0, 1.0  # even: sin (1 + 1/2 cos^2 + (1 3)/(2 4) cos^4 + ...)
    for k in range(1, (df - 2) // 2 + 1):
        term *= (2 * k - 1) / (2 * k) * c2
        total += term
    return s * total


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile with whole ``df`` >= 1 (as scipy's ``t.ppf``, ~1e-12): the
    Cornish-Fisher expansion (A&S 26.7.5) polished by Newton's method on the exact
    series of ``_t_two_sided_mass`` for df <= 1000; beyond, the expansion alone (its
    error is below 1e-14 there)."""
    p = float(p)
    df = _count(df, "df")
    if df < 1:
        raise ValueError("df must be >= 1")
    if not 0.0 < p < 1.0:
        if p in (0.0, 1.0):
            return math.copysign(math.inf, p - 0.5)
        raise ValueError(f"p must be in [0, 1], got {p!r}")
    if p == 0.5:
        return 0.0
    upper = max(p, 1.0 - p)
    x = normal_quantile(upper)
    v = float(df)
    t = (x + (x**3 + x) / (4 * v) + (5 * x**5 + 16 * x**3 + 3 * x) / (96 * v**2)
         + (3 * x**7 + 19 * x**5 + 17 * x**3 - 15 * x) / (384 * v**3)
         + (79 * x**9 + 776 * x**7 + 1482 * x**5 - 1920 * x**3 - 945 * x) / (92160 * v**4))
    if df <= 1000:
        if df <= 2:  # closed forms
            t = math.tan(math.pi * (upper - 0.5)) if df == 1 else (2 * upper - 1) * math.sqrt(2 / (4 * upper * (1 - upper)))
        else:
            log_norm = math.lgamma((v + 1) / 2) - math.lgamma(v / 2) - 0.5 * math.log(v * math.pi)
            for _ in range(50):
                density = math.exp(log_norm - (v + 1) / 2 * math.log1p(t * t / v))
                step = ((1.0 + _t_two_sided_mass(t, df)) / 2.0 - upper) / density
                t -= step
                if abs(step) <= 1e-15 * max(1.0, abs(t)):
                    break
    return t if p > 0.5 else -t
