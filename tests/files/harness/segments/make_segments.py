"""Write the segment fixtures byte for byte (tabs, quotes and CRLF do not survive editors).

    python fixtures/segments/make_segments.py
"""

import os

HERE = os.path.dirname(os.path.abspath(__file__))

FILES = {
    "ref.txt": b'The cat sat on the mat.\nShe said "hello" to me.\nPrices rose\tsharply in May.\n'
               b'  Indented line stays indented.\n',
    "ref2.txt": b'A cat sat on the mat.\nShe told me "hello".\nPrices rose sharply in May.\n  An indented line.\n',
    "sys_a.txt": b'The cat sat on the mat.\nShe said "hello" to me .\nPrices rose\tsharply in may.\n'
                 b'  Indented line stays indented.',
    "sys_b.txt": b'the cat is on the mat   \r\nshe said hello\r\n"Prices" rose in May.\t\r\nIndented line.\r\n',
    "short.txt": b"one\ntwo\nthree\n",
}

if __name__ == "__main__":
    for name, data in FILES.items():
        with open(os.path.join(HERE, name), "wb") as fh:
            fh.write(data)
