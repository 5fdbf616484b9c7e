"""Loading a results file and mapping its columns: shared by every page that reads a file.

Session state set here (all prefixed ``gb_``):

- ``gb_file``        the loaded ``ResultsFile`` (or None after a bad file)
- ``gb_file_name``   its name (upload name, ``pasted rows`` or the sample's file name)
- ``gb_file_hash``   sha256 of the file's bytes: the cache key of everything scored from it
- ``gb_file_sample`` the sample's file name when the file is a sample, else None
- ``gb_file_header`` False when the file was read without a header row (``--no-header``)
- ``gb_file_error``  the message of the last file that could not be read, else None
- ``gb_upload_seen`` the id of the last uploaded file already read (an upload is read once,
                     so that a later sample click is not overridden by the uploader's value);
                     ``gb_runs_seen`` and ``gb_segments_seen`` the same for two runs and for
                     segment files
- ``gb_paste_headerless_seen`` the hash of the last pasted text read as two headerless
                     columns without being asked (once per text: unticking the box sticks)
- ``gb_paste_headerless_for`` the ``gb_file_hash`` of that reading (its caption shows while loaded)
- ``gb_mapping``     {role: column | None} from ``mapping_widget``
- ``gb_mapping_for`` the ``gb_file_hash`` that ``gb_mapping`` belongs to
- ``gb_mapping_for_<key>`` the file hash the select boxes of ``mapping_widget(file, key)``
                     were set for: a file loaded anywhere resets each page's boxes to its
                     suggested mapping the next time that page draws them
- ``gb_w_<key>_map_<role>`` the select boxes' own state (kept across pages by
                     ``persist_state="session"``)
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Mapping

import streamlit as st

from graders.config import ROLES, suggest_mapping
from graders.readers import segments
from graders.readers.files import ResultsFile, ResultsFileError, read_results
from graders.readers.several import read_uploads

from . import count, display

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "sample_data"
# The one-click samples: file name -> button label.
SAMPLES: dict[str, str] = {
    "returns_desk.csv": "Returns desk",
    "returns_ab_wide.csv": "A/B wide",
    "returns_ab_long.jsonl": "A/B long",
    "returns_assertions.jsonl": "Per-row assertions",
}
SAMPLE_NOTES: dict[str, str] = {  # each button's help
    "returns_desk.csv": "CSV, 40 cases of one version",
    "returns_ab_wide.csv": "CSV, output and output_b columns: model A beside model B",
    "returns_ab_long.jsonl": "JSON lines, two versions with three repeats each",
    "returns_assertions.jsonl": "JSON lines, with an assert column of per-row assertions",
}
ROLE_LABELS: dict[str, str] = {
    "id": "Case id",
    "expected": "Expected (reference)",
    "output": "Output",
    "output_b": "Second model output",
    "input": "Input (prompt)",
    "version": "Version",
    "repeat": "Repeat",
    "expected_kind": "Expected kind",
    "assert": "Per-row assertions",
}
NONE_LABEL = "— none —"
PREVIEW_ROWS = 20


def sample_config(name: str | None) -> dict[str, Any] | None:
    """The configuration shipped beside a sample (``<stem>.config.json``), if any."""
    if not name:
        return None
    path = SAMPLE_DIR / (name.rsplit(".", 1)[0] + ".config.json")
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


PASTED = "pasted rows"  # the name of rows pasted into the page
NO_HEADER = ("No header row: the first line is a row (CSV or TSV; two columns are read as expected and output, "
             "and each row's id is its row number)")


HEADER_HINT = "If its first line is a row, tick “No header row”."


def header_hint(file: ResultsFile) -> str | None:
    """A hint to tick “No header row” for a CSV or TSV file read with a header none of
    whose names is a known name for the output: its first line is most likely a row."""
    if st.session_state.get("gb_file_header") is False or file.format not in ("csv", "tsv"):
        return None
    if suggest_mapping(file.columns).get("output") is not None:
        return None
    return f"None of the column names is a known name for the output (output, actual, response, …). {HEADER_HINT}"


def load_bytes(data: bytes, name: str, *, sample: str | None = None, header: bool = True) -> ResultsFile | None:
    """Read ``data`` into ``gb_file``; on a bad file set ``gb_file_error`` and clear ``gb_file``.
    ``header=False``: a CSV or TSV's first line is a row (``read_results``)."""
    digest = _hash(data) + ("" if header else ":no-header")
    ss = st.session_state
    if ss.get("gb_file") is not None and ss.get("gb_file_hash") == digest and ss.get("gb_file_name") == name:
        ss["gb_file_error"] = None
        return ss["gb_file"]
    try:
        file = read_results(data, name=name, header=header)
    except ResultsFileError as e:
        return _failed(name, f"Could not read {name}: {e}" + (
            f". {HEADER_HINT}" if header and str(e) == "no rows: the file has a header and no records" else ""))
    return _loaded(file, name, digest, sample, header)


def _failed(name: str, message: str) -> None:
    ss = st.session_state
    ss["gb_file"], ss["gb_file_hash"], ss["gb_file_sample"] = None, None, None
    ss["gb_file_name"], ss["gb_file_error"] = name, message
    return None


def _loaded(file: ResultsFile, name: str, digest: str, sample: str | None = None, header: bool = True) -> ResultsFile:
    ss = st.session_state
    ss["gb_file"], ss["gb_file_name"], ss["gb_file_hash"] = file, name, digest
    ss["gb_file_sample"], ss["gb_file_error"], ss["gb_file_header"] = sample, None, header
    return file


def load_runs(files: list[tuple[str, bytes]]) -> ResultsFile | None:
    """Two runs of the same cases, uploaded apart (``gradeboard compare RUN_A RUN_B``): read
    as one file, each run a version named after its file (A first), paired by id and repeat."""
    name = " and ".join(n for n, _ in files)
    try:
        file = read_uploads(files)
    except ResultsFileError as e:
        return _failed(name, f"Could not read the runs: {e}")
    return _loaded(file, name, "runs:" + ":".join(_hash(d) + n for n, d in files))


def load_segments(refs: list[tuple[str, bytes]], hyps: list[tuple[str, bytes]]) -> ResultsFile | None:
    """Plain-text segment files (one segment a line, as sacrebleu reads them: ``--ref``,
    ``--hyp``): one row per line and system, each system named after its file."""
    name = " and ".join(n for n, _ in refs + hyps)
    try:
        file = segments.read([d for _, d in refs], dict(hyps), ref_names=[n for n, _ in refs])
    except ResultsFileError as e:
        return _failed(name, f"Could not read the segment files: {e}")
    return _loaded(file, name, "segments:" + ":".join(_hash(d) + n for n, d in refs + hyps))


def _runs_tab(key: str) -> None:
    """Run A and run B as two uploads, read once each pair."""
    ss = st.session_state
    c1, c2 = st.columns(2)
    a = c1.file_uploader("Run A (any results file, harness files too)", key=f"{key}_run_a")
    b = c2.file_uploader("Run B, the same cases", key=f"{key}_run_b")
    if a is not None and b is not None and ss.get("gb_runs_seen") != (a.file_id, b.file_id):
        ss["gb_runs_seen"] = (a.file_id, b.file_id)
        load_runs([(a.name, a.getvalue()), (b.name, b.getvalue())])
    st.caption("Each run is a version named after its file; rows pair by id (and repeat).")


def _segments_tab(key: str) -> None:
    """A reference file and one or more system files, one segment a line."""
    ss = st.session_state
    c1, c2 = st.columns(2)
    ref = c1.file_uploader("Reference (one segment a line)", key=f"{key}_seg_ref")
    hyps = c2.file_uploader("System outputs (one file a system)", key=f"{key}_seg_hyp", accept_multiple_files=True)
    if ref is not None and hyps:
        seen = (ref.file_id, tuple(h.file_id for h in hyps))
        if ss.get("gb_segments_seen") != seen:
            ss["gb_segments_seen"] = seen
            load_segments([(ref.name, ref.getvalue())], [(h.name, h.getvalue()) for h in hyps])
    st.caption("As sacrebleu reads them: line i of each system file is the output for line i of the reference; "
               "each system is named after its file.")


TWO_COLUMNS = ("Read as two tab-separated columns without a header, expected then output: the first line "
               "names no known column. To read it as the header, untick “No header row” and read again.")


def _read_pasted(key: str) -> None:
    """The “Read pasted rows” button (a callback: it may tick the box above it). Two
    tab-separated columns whose first line names no known column (a spreadsheet's two
    columns copied without their header, seed 004) are read without a header, as expected
    and output, and the box is ticked to say so; once per text, so that unticking it and
    reading again takes the first line as the header."""
    ss = st.session_state
    text = ss.get(f"{key}_paste") or ""
    if not text.strip():
        ss["gb_file_error"] = "Nothing to read: paste some rows first."
        return
    data = text.encode("utf-8")
    no_header = bool(ss.get(f"{key}_paste_no_header"))
    file = load_bytes(data, PASTED, header=not no_header)
    if no_header or ss.get("gb_paste_headerless_seen") == _hash(data):
        return
    if file is None:  # a first line that cannot be a header (alone, or naming a column twice): a row?
        names = text.strip("\r\n").split("\n")[0].rstrip("\r").split("\t")
    else:
        names = list(file.columns) if file.format == "tsv" else []
    if len(names) == 2 and not any(suggest_mapping(names).values()):
        ss["gb_paste_headerless_seen"] = _hash(data)
        if load_bytes(data, PASTED, header=False) is not None:
            ss[f"{key}_paste_no_header"] = True
            ss["gb_paste_headerless_for"] = ss["gb_file_hash"]


def read_flags(file: ResultsFile) -> str:
    """The command line's flags that read the loaded file as the page did: ``--no-header``
    for a file read without a header row, and ``--format`` for pasted rows (the file they
    are saved to may be named for another format)."""
    ss = st.session_state
    flags = f" --format {file.format}" if ss.get("gb_file_name") == PASTED else ""
    return flags + (" --no-header" if ss.get("gb_file_header") is False else "")


def load_sample(name: str) -> ResultsFile | None:
    return load_bytes((SAMPLE_DIR / name).read_bytes(), name, sample=name)


def load_file_widget(key: str, *, default_sample: str | None = None) -> ResultsFile | None:
    """Upload / paste / one-click samples; shows format, row count and a preview.

    ``default_sample``: loaded once per session when nothing has been loaded yet.
    """
    ss = st.session_state
    if default_sample and "gb_file_hash" not in ss:
        load_sample(default_sample)

    # a row that wraps: each button as wide as its label, none cut short in a narrow window
    bar = st.container(horizontal=True, vertical_alignment="center")
    bar.markdown("**Samples**", width="content")
    for name, label in SAMPLES.items():
        if bar.button(label, key=f"{key}_sample_{name}", help=f"sample_data/{name}: {SAMPLE_NOTES[name]}"):
            load_sample(name)
    upload_tab, paste_tab, runs_tab, segments_tab = st.tabs(["Upload a file", "Paste rows", "Two runs (A and B)",
                                                             "Segment files"])
    with runs_tab:
        _runs_tab(key)
    with segments_tab:
        _segments_tab(key)
    with upload_tab:
        up = st.file_uploader(
            "Results file (CSV, TSV, JSON lines, JSON array, JSON with a rows array)",
            key=f"{key}_upload",
        )
        no_header = st.checkbox(NO_HEADER, key=f"{key}_upload_no_header")
        # read again when the box changes while the file is still in the uploader
        if up is not None and ss.get("gb_upload_seen") != (up.file_id, no_header):
            ss["gb_upload_seen"] = (up.file_id, no_header)
            load_bytes(up.getvalue(), up.name, header=not no_header)
    with paste_tab:
        st.text_area("Rows (CSV or TSV with a header, two tab-separated columns, JSON lines or JSON)",
                     key=f"{key}_paste", height=150)
        st.checkbox(NO_HEADER, key=f"{key}_paste_no_header")
        st.button("Read pasted rows", key=f"{key}_paste_go", on_click=_read_pasted, args=(key,))
        if ss.get("gb_file_name") == PASTED and ss.get("gb_paste_headerless_for") == ss.get("gb_file_hash"):
            st.caption(TWO_COLUMNS)

    if ss.get("gb_file_error"):
        st.error(display.inert(ss["gb_file_error"]))
        return None
    file = ss.get("gb_file")
    if file is None:
        st.info("Load a results file to begin.")
        return None
    unread = f", {len(file.unreadable)} unreadable" if file.unreadable else ""
    st.markdown(
        f"**{display.md(ss.get('gb_file_name'))}** — format `{file.format}`, {count(len(file.frame), 'row')}{unread}, "
        f"{count(len(file.columns), 'column')}."
    )
    hint = header_hint(file)
    if hint:
        st.caption(hint)
    with st.expander(f"Preview (first {min(PREVIEW_ROWS, len(file.frame))} rows)"):
        st.dataframe(display.frame(file.frame.head(PREVIEW_ROWS)), hide_index=True)
    return file


def _map_key(key: str, role: str) -> str:
    return f"gb_w_{key}_map_{role}"


def set_mapping(mapping: Mapping[str, str | None], key: str) -> None:
    """Preselect ``mapping`` in ``mapping_widget(file, key)``'s select boxes (call before
    they render: from a callback or earlier in the script)."""
    ss = st.session_state
    for role in ROLES:
        ss[_map_key(key, role)] = mapping.get(role) or NONE_LABEL
    ss["gb_mapping"] = {role: mapping.get(role) for role in ROLES}
    ss["gb_mapping_for"] = ss[f"gb_mapping_for_{key}"] = ss.get("gb_file_hash")


def mapping_widget(file: ResultsFile, key: str) -> dict[str, str | None]:
    """One select box per role (suggested column preselected, dotted columns included).

    The boxes' state is ``gb_w_<key>_map_<role>``; a newly loaded file resets them to the
    file's suggested mapping.
    """
    ss = st.session_state
    digest = ss.get("gb_file_hash") or hashlib.sha256(repr(file.columns).encode()).hexdigest()
    options = [NONE_LABEL, *file.columns]
    if ss.get(f"gb_mapping_for_{key}") != digest or any(_map_key(key, r) not in ss for r in ("id", "output")):
        set_mapping(suggest_mapping(file.columns), key)
        ss["gb_mapping_for"] = ss[f"gb_mapping_for_{key}"] = digest
    mapping: dict[str, str | None] = {}
    cols = st.columns(3)
    for i, role in enumerate(ROLES):
        k = _map_key(key, role)
        if ss.get(k) not in options:
            ss[k] = NONE_LABEL
        choice = cols[i % 3].selectbox(ROLE_LABELS.get(role, role), options, key=k, persist_state="session",
                                        format_func=display.text)
        mapping[role] = None if choice == NONE_LABEL else choice
    if mapping["id"] is None:
        st.caption("No column is mapped to id: each row's id is its row number (a long file with versions "
                   "needs one to pair them).")
    ss["gb_mapping"], ss["gb_mapping_for"] = mapping, digest
    return mapping


def mapping_words(mapping: Mapping[str, str | None]) -> str:
    """``id → case_id · output → response …`` for the mapped roles, each column name as
    literal Markdown (``display.md``: a lone surrogate, a ``*`` or a line break shown)."""
    mapped = " · ".join(f"{role} → {display.md(col)}" for role, col in mapping.items() if col)
    return f"Mapped: {mapped}" if mapped else "Mapped: no column yet (choose them under Column mapping)."


def carry_mapping(file: ResultsFile, key: str, required: tuple[str, ...] = ("id", "output")) -> None:
    """Once per loaded file, preselect ``mapping_widget(file, key)``'s boxes (call just before
    it): with the mapping another page made for this same file (``gb_mapping``) when it maps
    every role in ``required`` to a column the file has, else with the suggested mapping;
    again whenever the boxes' state was dropped. ``mapping_widget`` alone resets its boxes
    to the suggested mapping the first time a page draws them for a file, so a mapping
    chosen on another page would be lost there (and, through ``gb_mapping``, on the pages
    visited next).

    Session state: ``gb_carried_for_<key>``, the file hash the boxes were last seeded for.
    """
    ss = st.session_state
    digest = ss.get("gb_file_hash") or hashlib.sha256(repr(file.columns).encode()).hexdigest()
    if ss.get(f"gb_carried_for_{key}") == digest and all(_map_key(key, r) in ss for r in ("id", "output")):
        return
    ss[f"gb_carried_for_{key}"] = digest
    carried = ss.get("gb_mapping") if ss.get("gb_mapping_for") == digest else None
    usable = isinstance(carried, Mapping) and all(carried.get(r) for r in required) and all(
        c is None or c in file.columns for c in carried.values())
    set_mapping(carried if usable else suggest_mapping(file.columns), key)
    ss[f"gb_mapping_for_{key}"] = digest  # mapping_widget keeps these boxes for this file
