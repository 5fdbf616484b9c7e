"""Plain-text segment files, checked against sacrebleu's own reading (sacrebleu 2.6.0)."""

import os
import subprocess
import sys

import pytest
import sacrebleu
from harness_files import FIXTURES, assert_one_message, fixture_bytes
from sacrebleu.utils import smart_open

from graders.readers import ResultsFileError, segments

SEG = os.path.join(FIXTURES, "segments")
FILES = ["ref.txt", "ref2.txt", "sys_a.txt", "sys_b.txt", "short.txt"]


def sacrebleu_lines(path):
    """What the sacrebleu command line makes of a file (sacrebleu.py: smart_open, rstrip)."""
    return [line.rstrip() for line in smart_open(path)]


@pytest.mark.parametrize("name", FILES)
def test_lines_as_sacrebleu_reads_them(name):
    assert segments.segments(fixture_bytes("segments", name)) == sacrebleu_lines(os.path.join(SEG, name))


@pytest.mark.parametrize("data", [
    b"a\r\nb\r\n", b"a\rb\n", b"a\n\nb", b"a\n\n", b"\n", b"", b"x\xe2\x80\xa8y\n", b"x\x0cy\n",
    b"  lead\ttab\t \n", b"\xc2\x85end\xc2\x85\n", b'say "hi"\n',
])
def test_edge_cases_as_sacrebleu(tmp_path, data):
    path = tmp_path / "f.txt"
    path.write_bytes(data)
    assert segments.segments(data) == sacrebleu_lines(str(path))


def test_bom_is_dropped():
    assert segments.segments(b"\xef\xbb\xbfhello\n") == ["hello"]


def read(refs, hyps):
    return segments.read([fixture_bytes("segments", r) for r in refs], {h: fixture_bytes("segments", h) for h in hyps},
                         ref_names=refs)


def test_long_frame_one_reference():
    r = read(["ref.txt"], ["sys_a.txt", "sys_b.txt"])
    assert r.format == "segments"
    assert r.columns == ("id", "version", "expected", "expected_kind", "output")
    assert r.records == (1, 2, 3, 4, 1, 2, 3, 4)
    rows = {(x["id"], x["version"]): x for x in r.frame.to_dict("records")}
    assert rows[("2", "sys_a")]["output"] == 'She said "hello" to me .'
    assert rows[("3", "sys_a")]["output"] == "Prices rose\tsharply in may."
    assert rows[("3", "sys_a")]["expected"] == "Prices rose\tsharply in May."
    assert rows[("4", "sys_a")]["output"] == "  Indented line stays indented."
    assert rows[("1", "sys_b")]["output"] == "the cat is on the mat"  # CR LF and trailing spaces gone
    assert rows[("3", "sys_b")]["output"] == '"Prices" rose in May.'
    assert set(r.frame["expected_kind"]) == {"exact"}


def test_several_references_are_any_of():
    r = read(["ref.txt", "ref2.txt"], ["sys_a.txt"])
    first = r.frame.to_dict("records")[0]
    assert first["expected"] == '["The cat sat on the mat.","A cat sat on the mat."]'
    assert first["expected_kind"] == "any-of"


@pytest.mark.parametrize("refs", [["ref.txt"], ["ref.txt", "ref2.txt"]])
def test_corpus_bleu_equals_the_sacrebleu_command(refs):
    r = read(refs, ["sys_b.txt"])
    outputs = list(r.frame["output"])
    references = [sacrebleu_lines(os.path.join(SEG, ref)) for ref in refs]
    ours = sacrebleu.corpus_bleu(outputs, references).score
    cli = subprocess.run([sys.executable, "-m", "sacrebleu", *[os.path.join(SEG, x) for x in refs],
                          "-i", os.path.join(SEG, "sys_b.txt"), "-b", "-m", "bleu"],
                         capture_output=True, text=True, check=True)
    assert round(ours, 1) == float(cli.stdout.strip())


def test_line_count_mismatch_names_both_counts():
    with pytest.raises(ResultsFileError) as info:
        read(["ref.txt"], ["sys_a.txt", "short.txt"])
    assert str(info.value) == ("the hypothesis file short.txt has 3 lines and the reference ref.txt has 4; "
                               "each line is one segment, so the counts must match")
    assert_one_message(info.value)


def test_reference_count_mismatch():
    with pytest.raises(ResultsFileError, match="ref.txt has 4 lines, short.txt has 3"):
        read(["ref.txt", "short.txt"], ["sys_a.txt"])


def test_two_files_one_system_name():
    with pytest.raises(ResultsFileError, match="two hypothesis files name the same system 'sys_a'"):
        segments.read([b"x\n"], {"a/sys_a.txt": b"y\n", "b/sys_a.out": b"z\n"})


@pytest.mark.parametrize("name, system", [("sys1.txt", "sys1"), ("out/sys1.txt", "sys1"),
                                          ("sys1.de.txt", "sys1.de"), ("sys1", "sys1"), (".hidden", ".hidden")])
def test_system_name(name, system):
    assert segments.system_name(name) == system


def test_not_utf8():
    with pytest.raises(ResultsFileError, match="sys.txt is not UTF-8 text: byte 0xff at byte offset 2"):
        segments.read([b"ab\n"], {"sys.txt": b"ab\xff\n"})
