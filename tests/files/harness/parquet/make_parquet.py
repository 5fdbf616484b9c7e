"""Write ``results.parquet`` with pyarrow: one column per kind of cell the reader converts.

    python fixtures/parquet/make_parquet.py      (pyarrow 26.0.1)
"""

import datetime
import decimal
import os

import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))

TABLE = pa.table({
    "id": pa.array(["a1", "a2", "a3"]),
    "expected": pa.array(["42", "NA", None]),
    "output": pa.array(["The refund is $42.00.", "", "007"]),
    "repeat": pa.array([0, 1, None], pa.int64()),
    "score64": pa.array([0.1, 1e-05, float("nan")], pa.float64()),
    "score32": pa.array([0.1, 123456789.0, None], pa.float32()),
    "passed": pa.array([True, False, None]),
    "price": pa.array([decimal.Decimal("3.10"), decimal.Decimal("-0.50"), None], pa.decimal128(5, 2)),
    "day": pa.array([datetime.date(2024, 1, 2), None, datetime.date(1999, 12, 31)]),
    "tags": pa.array([["x", "y"], [], None], pa.list_(pa.string())),
    "metadata": pa.array([{"topic": "refunds", "weight": 1.5, "ok": True}, None,
                          {"topic": "tax", "weight": None, "ok": False}],
                         pa.struct([("topic", pa.string()), ("weight", pa.float64()), ("ok", pa.bool_())])),
    "raw": pa.array([b"bytes \xc3\xa9", None, b"ok"], pa.binary()),
    "label": pa.array(["A", "B", "A"]).dictionary_encode(),
})

if __name__ == "__main__":
    pq.write_table(TABLE, os.path.join(HERE, "results.parquet"))
    # The same rows, a byte that is not UTF-8 in one binary cell: that row is unreadable.
    raw = pa.array([b"ok", b"\xff\xfe", None], pa.binary())
    bad = TABLE.set_column(TABLE.schema.get_field_index("raw"), "raw", raw)
    pq.write_table(bad, os.path.join(HERE, "bad_binary.parquet"))
