"""Write the fixtures whose bytes matter (BOM, CRLF, tabs, NUL, Latin-1, UTF-16, empty).

Run from anywhere: ``python tests/files/make_files.py``. The other fixtures beside this
script are plain UTF-8 text with LF line ends, written by hand. ``.gitattributes`` keeps
git from converting any of them.
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent

FILES: dict[str, bytes] = {
    # BOM, CRLF line ends, quoted fields holding CRLF, LF, commas and doubled quotes.
    "crlf_bom_quoted.csv": b"\xef\xbb\xbf"
    + (
        'id,input,expected,output\r\n'
        'q1,"Line one\r\nline two",Paris,Paris\r\n'
        'q2,"a, b and c","He said ""hi""","He said ""hi"""\r\n'
        'q3,plain,"two\nlines",two lines\r\n'
        'q4, leading space ,trailing space ,"  both  "\r\n'
    ).encode("utf-8"),
    # A PNG signature and header: NUL at byte offset 8.
    "binary.bin": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10",
    # Latin-1, not UTF-8: "é" is 0xE9 at byte offset 15.
    "latin1.csv": "id,output\n1,caf\xe9 cr\xe8me\n".encode("latin-1"),
    # UTF-16 with its BOM.
    "utf16.csv": "id,output\n1,hello\n".encode("utf-16"),
    # Tabs; a quoted cell holding a tab and a newline; spaces and quotes kept as written.
    "results.tsv": (
        "id\texpected\toutput\tnote\n"
        "t1\tParis\tParis\t \n"
        't2\t"tab\there"\t"line\nbreak"\tNA\n'
        't3\t3.10\t 3.10 \tsaid "hi"\n'
        "t4\tcomma, inside\tno quotes needed\t\n"
    ).encode("utf-8"),
    "empty.csv": b"",
    "whitespace.jsonl": b"\n  \r\n\t\n",
}


def main() -> None:
    for name, data in FILES.items():
        (HERE / name).write_bytes(data)


if __name__ == "__main__":
    main()
