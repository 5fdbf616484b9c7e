"""Scoring cached per grader (issue 33, 3): adding a grader scores that grader alone,
removing one scores nothing, a threshold change re-decides without regrading — and every
step gives what fresh scoring of the same configuration gives, cell for cell, summary
for summary (the pieces of ``ui.present.pieces`` against ``pipeline.score_prepared``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from graders.config import GraderConfig, RunConfig, load_config, mapping_dict
from graders.pipeline import resolve_mapping, score_prepared
from graders.readers.files import read_results
from graders.scoring.output import scored_csv_bytes
from graders.scoring.rows import prepare
from graders.scoring.thresholds import apply_thresholds, split_thresholds
from ui.present import pieces as P

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_data"
HARNESS = ROOT / "tests" / "files" / "harness"
CELLS = [c for c in P.COLUMNS if c != "details"]  # details travel only where a chart reads them


def _config(names, overall=None, **params) -> RunConfig:
    return RunConfig({}, tuple(GraderConfig.make(n, params.get(n)) for n in names), overall)


def _assembled(file, config: RunConfig, mapping, stored: dict | None = None):
    """The run from pieces as ui.scoring puts it together: (scored frame, summary)."""
    base, thresholds = split_thresholds(config)
    prepared = prepare(file, mapping, needs_expected=base.needs_expected)
    stored = {} if stored is None else stored
    missing = [gc for gc in base.graders if gc.to_dict()["name"] not in stored or stored[gc.name][0] != gc]
    got = P.score_pieces(prepared.rows, missing, P.ASSERTIONS not in stored)
    for name, piece in got.items():
        stored[name] = (next((gc for gc in base.graders if gc.name == name), None), piece)
    pieces = {gc.name: stored[gc.name][1] for gc in base.graders}
    if P.ASSERTIONS in stored:
        pieces[P.ASSERTIONS] = stored[P.ASSERTIONS][1]
    overall = P.overall_piece(base.overall, P.binary_pieces(base, pieces), prepared.rows) if base.overall else None
    if overall is not None:
        pieces["overall"] = overall
    parts = P.place(base, pieces, overall, len(prepared.rows))
    parts = {s: apply_thresholds(f, {s: thresholds[s]}) if s in thresholds else f for s, f in parts.items()}
    summaries = []
    for name in [*base.grader_names, "overall", P.ASSERTIONS]:
        if name not in pieces:
            continue
        frame = pieces[name].frame
        if name in thresholds:
            frame = apply_thresholds(frame, {name: thresholds[name]})
        gc = next((g for g in base.graders if g.name == name), None)
        summaries.append(P.piece_summary(frame, prepared.rows, gc, pieces[name].statistics))
    summary = P.merge_summaries(summaries, prepared.rows, left_out=prepared.left_out.to_dict(),
                                config={**config.to_dict(), "columns": mapping_dict(mapping)})
    binaries = [*P.binary_pieces(base, pieces), *([overall] if overall is not None else [])]
    agreement = P.merge_agreements([P.piece_agreement(file, prepared.rows, p.name, p.frame) for p in binaries])
    if agreement:
        summary["harness_agreement"] = agreement
    return P.full_frame(parts), summary


def _same(a, b) -> bool:
    return json.dumps(a, sort_keys=False, default=str) == json.dumps(b, sort_keys=False, default=str)


DESK = load_config(SAMPLES / "returns_desk.config.json")
CASES = [
    ("returns_desk.csv", DESK),
    ("returns_ab_wide.csv", RunConfig({}, DESK.graders, "all")),
    ("returns_ab_long.jsonl", _config(["exact", "normalized", "bleu", "chrf", "token_f1"], "any",
                                      token_f1={"threshold": 0.6}, bleu={"threshold": 0.3})),
    ("returns_assertions.jsonl", _config(["exact", "contains"], "any")),
    ("returns_assertions.jsonl", _config(["token_f1"])),
]


@pytest.mark.parametrize("name,config", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_pieces_put_together_are_the_full_run_cell_for_cell(name, config):
    file = read_results((SAMPLES / name).read_bytes())
    mapping = resolve_mapping(file, config)
    fresh = score_prepared(file, config, mapping=mapping)
    scored, summary = _assembled(file, config, mapping)
    assert scored[CELLS].equals(fresh.scored[CELLS].reset_index(drop=True))
    assert _same(summary, fresh.summary)


def test_the_harness_agreement_is_the_full_runs():
    file = read_results((HARNESS / "promptfoo" / "results.json").read_bytes())
    config = _config(["exact", "normalized"], "all")
    mapping = resolve_mapping(file, config)
    fresh = score_prepared(file, config, mapping=mapping)
    scored, summary = _assembled(file, config, mapping)
    assert "harness_agreement" in fresh.summary
    assert scored[CELLS].equals(fresh.scored[CELLS].reset_index(drop=True))
    assert _same(summary, fresh.summary)


def test_add_remove_and_threshold_sequences_equal_fresh_scoring():
    """One cache across a sequence of configurations; each step against a fresh run."""
    file = read_results((SAMPLES / "returns_ab_long.jsonl").read_bytes())
    steps = [
        _config(["exact"], "any"),
        _config(["exact", "token_f1"], "any", token_f1={"threshold": 0.5}),  # add
        _config(["exact", "token_f1"], "any", token_f1={"threshold": 0.8}),  # threshold
        _config(["token_f1", "exact", "numeric"], "all", token_f1={"threshold": 0.8}),  # add, reorder, rule
        _config(["token_f1", "numeric"], "all", token_f1={"threshold": 0.2}),  # remove, threshold
        _config(["numeric", "normalized"], None, normalized={"pipeline": ["trim"]}),  # remove, add with params
        _config(["numeric", "normalized"], "any", numeric={"read": "last"}),  # a parameter change
    ]
    stored: dict = {}
    for config in steps:
        mapping = resolve_mapping(file, config)
        fresh = score_prepared(file, config, mapping=mapping)
        scored, summary = _assembled(file, config, mapping, stored)
        assert scored[CELLS].equals(fresh.scored[CELLS].reset_index(drop=True)), config.to_dict()
        assert _same(summary, fresh.summary), config.to_dict()


# --------------------------------------------------------------------------- the page


def _start() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    assert not at.exception, at.exception
    return at


def _fresh_equal(at: AppTest) -> None:
    """The page's view equals fresh scoring of its exported configuration: the scored file
    byte for byte (the download) and the summary."""
    from ui.scoring import full_scored

    view = at.session_state["gb_view"]
    run = view["run"]
    fresh = score_prepared(run.file, view["config"], mapping=run.mapping)
    assert scored_csv_bytes(full_scored(view)) == scored_csv_bytes(fresh.scored)
    assert _same(view["summary"], fresh.summary)


def _counters(at: AppTest) -> tuple[int, int]:
    ss = at.session_state
    return ss["gb_score_count"], ss["gb_graders_scored"]


def test_adding_scores_one_grader_removing_scores_none_and_a_threshold_none():
    at = _start()
    graders = at.multiselect(key="gb_w_score_graders")
    names = list(graders.value)
    runs, scored = _counters(at)
    _fresh_equal(at)

    graders.set_value([n for n in names if n != "contains"]).run()  # remove
    assert not at.exception
    assert _counters(at) == (runs, scored)
    assert "contains" not in at.session_state["gb_view"]["summary"]["graders"]
    _fresh_equal(at)

    graders = at.multiselect(key="gb_w_score_graders")
    graders.set_value([*graders.value, "valid_json"]).run()  # add a grader never scored
    assert not at.exception
    assert _counters(at) == (runs + 1, scored + 1)  # that grader alone
    _fresh_equal(at)

    at.number_input(key="gb_w_score_rouge_l_threshold").set_value(0.7).run()  # a threshold
    assert _counters(at) == (runs + 1, scored + 1)
    _fresh_equal(at)

    at.radio(key="gb_w_score_overall").set_value("all").run()  # the overall rule: re-decided, not regraded
    assert _counters(at) == (runs + 1, scored + 1)
    _fresh_equal(at)

    graders = at.multiselect(key="gb_w_score_graders")
    graders.set_value([*graders.value, "contains"]).run()  # back: cached
    assert _counters(at) == (runs + 1, scored + 1)
    _fresh_equal(at)

    at.radio(key="gb_w_score_numeric_read").set_value("first").run()  # a parameter: that grader alone
    assert _counters(at) == (runs + 2, scored + 2)
    _fresh_equal(at)


def test_the_cache_is_bounded_but_keeps_what_the_configuration_uses(monkeypatch):
    from ui import scoring

    at = _start()
    monkeypatch.setattr(scoring, "MAX_CACHED_ROWS", 0)  # nothing spare is kept
    graders = at.multiselect(key="gb_w_score_graders")
    keep = list(graders.value)[:2]
    graders.set_value(keep).run()
    assert not at.exception
    store = at.session_state["gb_pieces"]
    names = {p.name for p in store.values()}
    assert set(keep) <= names and len(names - set(keep) - {"overall", P.ASSERTIONS}) == 0
    _fresh_equal(at)


def test_a_new_file_scores_anew():
    at = _start()
    runs, _ = _counters(at)
    at.file_uploader(key="score_upload").set_value(
        ("three.csv", b"id,expected,output\n1,Paris,Paris\n2,Rome,rome\n3,Oslo,Bergen\n", "text/csv"))
    at.run()
    assert not at.exception
    assert at.session_state["gb_score_count"] == runs + 1
    assert at.session_state["gb_view"]["summary"]["graders"]["exact"]["passed"] == 1
    _fresh_equal(at)
