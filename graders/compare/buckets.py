"""A comparison in buckets (SPEC §8 over a cluster): each part's scored rows of A and B sent
to a bucket by a hash of their id, each bucket paired on its own, and the buckets' numbers
merged in the single-process order, from which ``compare_file``'s figures are made, cell
for cell.

The single-process comparison lists its pairs by scorer, then by the first row of the
pair's key in the file. A bucket holds every row of its ids, so it knows each of its keys'
first row (a global position: the part's number, then the row's) and pairs its rows in that
order; merging the buckets is a sort on (scorer, first row). What a bucket sends back per
pair is a few numbers: the two scores and verdicts, its case and its id (as codes the merge
numbers in order of first appearance, as ``paired_summaries`` does), BLEU's and chrF's
sentence statistics; the comparison CSV's lines stay in the bucket until they are written,
one scorer at a time, in the merged order (``Merged.lines``).

    part_rows (each part)  ->  pair_bucket (each bucket)  ->  merge (the client)
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from graders.compare.comparison import comparison_columns, comparison_frame, side_rows, summaries_of
from graders.compare.corpus import corpus_figure, pair_statistics, ref_counts, row_statistics
from graders.compare.pairing import LISTED, _pair_keys, _pass_numeric, key_name, outcomes, paired_sides
from graders.readers.chunks import record_ends
from graders.scoring import parts as P
from graders.scoring import reduce as R
from graders.scoring.output import csv_bytes
from graders.scoring.rows import Prepared, group_codes

SENT = ("item", "repeat", "scorer", "system", "score", "pass")  # and the record, as numbers (no status: no figure reads it)
NUMBERS = ("rank", "first", "item_id", "case_id", "value_a", "value_b", "pass_a", "pass_b")
_ROW_BITS = 32  # a global position: the part's number above, the row's within it below


@dataclass(frozen=True)
class Sides:
    """What a part sends and how a bucket pairs it: A's and B's labels, the file's shape
    ("wide" or "long"), the mapping (a wide file's versions), the scorers compared in order,
    the corpus metrics run, the number of buckets, and whether the CSV is spreadsheet-safe."""

    a: str
    b: str
    source: str
    mapping: Mapping[str, str | None]
    scorers: tuple[str, ...]
    corpus: tuple[str, ...]
    buckets: int
    spreadsheet_safe: bool = False


@dataclass
class PartRows:
    """A part's share of a comparison: its summary ``Piece`` (each side's run summary adds
    them up), its rows' reference counts, and its scored rows of the compared scorers, one
    frame a bucket."""

    piece: R.Piece
    refs: set[int]
    rows: int
    slices: list[pd.DataFrame]


def _compared(part: P.Part, duplicates: Any, sides: Sides) -> pd.DataFrame:
    """The part's rows of A and B as ``compare_prepared`` has them, its duplicates left out."""
    kept = Prepared(P.kept_rows(part, duplicates), part.prepared.left_out, part.prepared.systems)
    return side_rows(kept, sides.mapping, sides.a, sides.b, sides.source)[1].reset_index(drop=True)


def part_rows(part: P.Part, duplicates: Any, config: Any, sides: Sides, index: int, cases: bool) -> PartRows:
    """Part ``index`` of the file, its duplicates left out, as ``compare_prepared`` has its rows
    (``side_rows``), scored in this process and cut into the buckets."""
    from graders.scoring.batch import _source_positions
    from graders.scoring.parallel import score_frame

    rows = _compared(part, duplicates, sides)
    scored = score_frame(rows, config, workers=1, explain=False)
    if "graders.engines.regex" in sys.modules:  # the part's texts, kept for a next pattern, go
        sys.modules["graders.engines.regex"].forget_batches()
    positions = _source_positions(rows, scored["record"].to_numpy(dtype=object), scored["system"].to_numpy(dtype=object))
    piece = R.piece(R.frame_tally(scored, positions, config.to_dict()), rows, cases)
    at = np.flatnonzero(scored["scorer"].isin(sides.scorers).to_numpy())
    sent: dict[str, Any] = {c: scored[c].to_numpy(dtype=object)[at] for c in SENT}
    for c in ("scorer", "system"):  # a few names, as codes
        sent[c] = pd.Categorical(sent[c])
    records = scored["record"].to_numpy()[at]
    whole = all(isinstance(r, (int, np.integer)) and not isinstance(r, bool) for r in records.tolist())
    sent["record"] = records.astype(np.int64) if whole else records  # 8 bytes a row, not an object each
    details = scored["details"].to_numpy(dtype=object)[at]
    names = np.asarray(sent["scorer"], dtype=object)
    statistics = np.full(len(at), None, dtype=object)  # BLEU's and chrF's sentence statistics, read here
    for i in np.flatnonzero(np.isin(names, sides.corpus)).tolist():
        statistics[i] = row_statistics(names[i], details[i])
    sent["statistics"] = statistics
    sent["_first"] = (np.int64(index) << _ROW_BITS) + positions[at].astype(np.int64)
    if "version" in rows.columns:  # a wide file with versions: each pair's version
        sent["version"] = rows["version"].to_numpy(dtype=object)[positions[at]]
    frame = pd.DataFrame({c: v if not isinstance(v, np.ndarray) or v.dtype != object else pd.Series(v, dtype=object)
                          for c, v in sent.items()})  # text stays object: pandas' str dtype cannot hold a lone surrogate
    bucket = (P.hash_cells([rows["item"].to_numpy(dtype=object)])[:, 0] % np.uint64(sides.buckets)).astype(np.int64)
    which = bucket[positions[at]]
    slices = [frame.iloc[np.flatnonzero(which == j)].reset_index(drop=True) for j in range(sides.buckets)]
    return PartRows(piece, ref_counts(rows), len(rows), slices)


def side_statistics(part: P.Part, duplicates: Any, sides: Sides, name: str, system: Any) -> list[int]:
    """BLEU's or chrF's corpus statistics of one side's outputs as written, in one part (a
    side's corpus figure when some of its rows' statistics are missing)."""
    from graders.scoring.stream import output_statistics

    rows = _compared(part, duplicates, sides)
    return output_statistics(rows[rows["system"].to_numpy(dtype=object) == system], name)


@dataclass
class Bucket:
    """A bucket paired: per pair, in (scorer, first row) order, its ``NUMBERS``; per corpus
    metric, its pairs whose statistics came back and those statistics; the keys on one side
    only (counts, and the first ``LISTED`` of each with their first rows); the comparison
    CSV's lines, one a pair (``ends``: where each ends). ``repeats``: a key repeats on a side,
    which the duplicate check rules out (one process pairs such rows with pandas' merge)."""

    numbers: dict[str, np.ndarray] = field(default_factory=dict)
    corpus: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)
    unpaired: dict[str, Any] = field(default_factory=dict)
    lines: bytes = b""
    ends: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    repeats: bool = False

    def figures(self) -> "Bucket":
        """The bucket without its lines: what the client gathers from each."""
        return Bucket(self.numbers, self.corpus, self.unpaired, repeats=self.repeats)

    def lines_of(self, rank: int) -> tuple[bytes, np.ndarray]:
        """The lines of the scorer ranked ``rank`` and where each ends in them."""
        if not self.numbers:  # a bucket no id fell into
            return b"", np.zeros(0, dtype=np.int64)
        ranks = self.numbers["rank"]
        lo, hi = np.searchsorted(ranks, rank, "left"), np.searchsorted(ranks, rank, "right")
        start = int(self.ends[lo - 1]) if lo else 0
        end = int(self.ends[hi - 1]) if hi > lo else start
        return self.lines[start:end], self.ends[lo:hi] - start


def pair_bucket(j: int, sides: Sides, *slices: pd.DataFrame) -> Bucket:
    """Bucket ``j``'s rows (its share of each part, in order) paired as ``compare_scored``
    pairs them, its pairs in the order of their keys' first rows."""
    scored = pd.concat(slices, ignore_index=True)
    scored["status"], scored["explanation"] = "", None  # no comparison figure reads them
    if not len(scored):
        return Bucket(unpaired={"a_only": (0, []), "b_only": (0, []), "pairs": 0})
    first_row = scored["_first"].to_numpy(dtype=np.int64)
    raw = _pair_keys(scored, sides.source)
    n = int(raw.max()) + 1
    row_of = np.lexsort((first_row, raw))  # each key's rows, the first first
    starts = np.flatnonzero(np.r_[True, raw[row_of][1:] != raw[row_of][:-1]])
    head = row_of[starts]  # each key's first scored row, by code
    by_first = np.argsort(first_row[head], kind="stable")
    key_of = np.empty(n, dtype=np.int64)
    key_of[by_first] = np.arange(n)
    merged = paired_sides(scored, sides.a, sides.b, sides.scorers, key_of[raw], with_key=True)
    if merged is None:
        return Bucket(repeats=True)
    pairs = outcomes(merged)
    if "version" in scored.columns:  # as compare_scored: the version of the pair's record
        version_of = dict(zip(scored["record"], scored["version"]))
        record = pairs["record_a"].where(pairs["record_a"].notna(), pairs["record_b"])
        pairs.insert(1, "version", pd.Series([version_of.get(r, "") for r in record], index=pairs.index, dtype=object))
    key = pairs["_key"].to_numpy(dtype=np.int64)
    rank = {name: i for i, name in enumerate(sides.scorers)}
    item = pairs["item"].to_numpy(dtype=object)
    base = np.int64(j) << _ROW_BITS
    numbers = {
        "rank": pairs["grader"].map(rank).to_numpy(dtype=np.int16),
        "first": first_row[head[by_first]][key],
        "item_id": base + group_codes([item] + ([pairs["version"].to_numpy(dtype=object)] if "version" in pairs else [])),
        "case_id": base + group_codes([item, pairs["repeat"].to_numpy(dtype=object)]),
        "value_a": pairs["value_a"].to_numpy(dtype=np.float64), "value_b": pairs["value_b"].to_numpy(dtype=np.float64),
        "pass_a": _pass_numeric(pairs["pass_a"]), "pass_b": _pass_numeric(pairs["pass_b"]),
    }
    corpus = {}
    for name in sides.corpus:
        keep, sa, sb = pair_statistics(scored, pairs, name, sides.a, sides.b)
        if keep and len({len(x) for x in sa}) == 1:
            corpus[name] = (np.array(keep, dtype=np.int64), np.array(sa, dtype=np.int64), np.array(sb, dtype=np.int64))
        elif keep:  # statistics of several lengths: the single-process run leaves the metric out
            corpus[name] = (np.array(keep, dtype=np.int64), None, None)
    body = csv_bytes(comparison_frame(pairs, sides.spreadsheet_safe), comparison_columns(pairs))
    body = body[body.index(b"\n") + 1:]  # the header, written once
    return Bucket(numbers, corpus, _one_side_only(scored, raw, head, sides), body, record_ends(body) + 1)


def _one_side_only(scored: pd.DataFrame, raw: np.ndarray, head: np.ndarray, sides: Sides) -> dict[str, Any]:
    """``_unpaired`` over the bucket: per side the keys on it alone (how many, and the first
    ``LISTED`` as (first row, name)), and the keys on both."""
    system = scored["system"].to_numpy(dtype=object)
    n = len(head)
    in_a = np.bincount(raw[system == sides.a], minlength=n) > 0
    in_b = np.bincount(raw[system == sides.b], minlength=n) > 0
    first_row = scored["_first"].to_numpy(dtype=np.int64)
    version = scored["version"].to_numpy(dtype=object) if "version" in scored.columns else None

    def listed(mask: np.ndarray) -> tuple[int, list[tuple[int, str]]]:
        codes = np.flatnonzero(mask)
        rows = head[codes[np.argsort(first_row[head[codes]], kind="stable")[:LISTED]]]
        return int(mask.sum()), [(int(first_row[r]), key_name(scored["item"].iat[r], "" if version is None else version[r],
                                                                scored["repeat"].iat[r])) for r in rows]

    return {"a_only": listed(in_a & ~in_b), "b_only": listed(in_b & ~in_a), "pairs": int((in_a & in_b).sum())}


# --------------------------------------------------------------------------- the client


@dataclass
class Merged:
    """The buckets' pairs in the single-process order: ``order`` takes the buckets' pairs,
    laid end to end, into it; ``numbers`` are theirs in that order."""

    buckets: list[Bucket]
    order: np.ndarray
    numbers: dict[str, np.ndarray]

    def unpaired(self) -> dict[str, Any]:
        """``_unpaired``'s counts and first keys, over every bucket."""
        out: dict[str, Any] = {}
        for side in ("a_only", "b_only"):
            shown = sorted(k for b in self.buckets for k in b.unpaired[side][1])[:LISTED]  # by first row
            out[side] = {"count": sum(b.unpaired[side][0] for b in self.buckets), "keys": [name for _, name in shown]}
        out["pairs"] = sum(b.unpaired["pairs"] for b in self.buckets)
        return out

    def summaries(self, scorers: Sequence[str], *, resamples: int, seed: int,
                  family_sizes: Mapping[str, int]) -> tuple[dict[str, Any], np.ndarray]:
        """``paired_summaries``' figures and the pairs' item codes (the unit resampled)."""
        m = self.numbers
        case_codes, item_codes = group_codes([m["case_id"]]), group_codes([m["item_id"]])
        groups = {name: np.flatnonzero(m["rank"] == r) for r, name in enumerate(scorers)}
        results = summaries_of(groups, m["value_a"], m["value_b"], m["pass_a"], m["pass_b"], case_codes, item_codes,
                               scorers, resamples=resamples, seed=seed, family_sizes=family_sizes)
        return results, item_codes

    def paired_corpus(self, names: Sequence[str], item_codes: np.ndarray, refs: set[int], *, resamples: int,
                      seed: int) -> dict[str, Any]:
        """``paired_corpus`` from the buckets' statistics, the pairs in merged order."""
        where = np.empty(len(self.order), dtype=np.int64)
        where[self.order] = np.arange(len(self.order))  # each bucket pair's place in the merged order
        offsets = np.cumsum([0] + [len(b.numbers.get("rank", ())) for b in self.buckets])
        out = {}
        for name in names:
            found = [(where[offsets[k] + keep], sa, sb) for k, b in enumerate(self.buckets)
                     if name in b.corpus for keep, sa, sb in [b.corpus[name]]]
            if not found or any(sa is None for _, sa, _ in found) or len({sa.shape[1] for _, sa, _ in found}) != 1:
                continue
            at = np.concatenate([f[0] for f in found])
            order = np.argsort(at, kind="stable")
            stats_a = np.concatenate([f[1] for f in found])[order]
            stats_b = np.concatenate([f[2] for f in found])[order]
            out[name] = corpus_figure(name, stats_a, stats_b, item_codes[at[order]], refs, resamples=resamples,
                                      seed=seed)
        return out

    def lines(self, rank: int, blocks: Sequence[tuple[bytes, np.ndarray]], size: int = 1 << 16) -> Iterator[bytes]:
        """The comparison CSV's lines of the scorer ranked ``rank`` in merged order, from each
        bucket's (``Bucket.lines_of``), ``size`` lines joined at a time."""
        bucket_of = np.repeat(np.arange(len(blocks)), [len(ends) for _, ends in blocks])
        starts = np.concatenate([np.r_[0, ends][:-1] for _, ends in blocks]) if blocks else np.zeros(0, np.int64)
        ends = np.concatenate([ends for _, ends in blocks]) if blocks else np.zeros(0, np.int64)
        mine = np.argsort(self.order_within(rank), kind="stable")  # the scorer's pairs of every bucket, merged
        data = [d for d, _ in blocks]
        for a in range(0, len(mine), size):
            at = mine[a:a + size]
            yield b"".join([data[b][s:e] for b, s, e in zip(bucket_of[at].tolist(), starts[at].tolist(), ends[at].tolist())])

    def order_within(self, rank: int) -> np.ndarray:
        """For the scorer ranked ``rank``, its pairs of every bucket laid end to end: each
        one's first row (the merged order sorts on it)."""
        return np.concatenate([b.numbers["first"][b.numbers["rank"] == rank] for b in self.buckets if b.numbers]
                              or [np.zeros(0, np.int64)])


def merge(buckets: list[Bucket]) -> Merged:
    """The buckets' pairs in the single-process order: by scorer, then by first row. Each
    bucket's numbers move into the merge but for its ranks and first rows."""
    have = [b.numbers for b in buckets if b.numbers]
    if not have:
        return Merged(buckets, np.zeros(0, np.int64), {name: np.zeros(0) for name in NUMBERS})
    joined = {name: np.concatenate([h[name] for h in have]) for name in NUMBERS}
    order = np.lexsort((joined["first"], joined["rank"]))
    for h in have:  # the buckets keep what their lines are merged by, once
        for name in NUMBERS[2:]:
            del h[name]
    return Merged(buckets, order, {name: col[order] for name, col in joined.items()})
