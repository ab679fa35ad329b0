"""Arrow tables and pandas DataFrames from the columns ``read_columns`` returns."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ztwin._lazy import lazy
from ztwin._native import layouts

if TYPE_CHECKING:
    import pandas as pd

    from ztwin._native import FieldInfo, LayoutInfo
else:
    pd = lazy("pandas")  # imported when first used (import time: see ztwin._lazy)

#: Arrow types of the integer field types; durations stay in raw TOD units.
_INTEGER_TYPES: dict[str, pa.DataType] = {
    "U1": pa.uint8(),
    "U2": pa.uint16(),
    "U4": pa.uint32(),
    "U8": pa.uint64(),
    "S2": pa.int16(),
    "S4": pa.int32(),
    "S8": pa.int64(),
    "Dur": pa.uint64(),
}

def _nullable(t: pa.DataType) -> Any:
    """pandas' nullable dtype of an Arrow integer type (None for other types), so that nulls stay <NA>."""
    return {
        pa.uint8(): pd.UInt8Dtype,
        pa.uint16(): pd.UInt16Dtype,
        pa.uint32(): pd.UInt32Dtype,
        pa.uint64(): pd.UInt64Dtype,
        pa.int16(): pd.Int16Dtype,
        pa.int32(): pd.Int32Dtype,
        pa.int64(): pd.Int64Dtype,
    }.get(t, lambda: None)()


_TIMESTAMP = pa.timestamp("us", tz="UTC")


def _field_type(f: FieldInfo) -> pa.DataType:
    """Arrow type of a decoded field (TOD values arrive as Unix microseconds)."""
    if f["type"] == "Tod":
        return _TIMESTAMP
    return _INTEGER_TYPES.get(f["type"], pa.string())


def schema(layout: LayoutInfo) -> pa.Schema:
    """Arrow schema of the columns ``read_columns`` produces for a layout."""
    cols = [
        pa.field("offset", pa.uint64(), nullable=False),
        pa.field("tod", _TIMESTAMP, nullable=False),
    ]
    cols += [pa.field(f["name"], _field_type(f)) for f in layout["fields"]]
    group = layout["group"]
    if group is not None:
        entry = pa.struct([pa.field(f["name"], _field_type(f)) for f in group["fields"]])
        cols.append(pa.field(group["name"], pa.list_(entry)))
    return pa.schema(cols)


def to_arrow(columns: dict[str, dict[str, list[Any]]]) -> dict[str, pa.Table]:
    """One typed Arrow table per record type."""
    known = {layout["name"]: layout for layout in layouts()}
    out = {}
    for name, cols in columns.items():
        full = schema(known[name])
        # read with a field list: only those columns
        sch = full if len(cols) == len(full) else pa.schema([f for f in full if f.name in cols])
        out[name] = pa.table(cols, schema=sch)
    return out


def to_pandas(table: pa.Table) -> pd.DataFrame:
    """A DataFrame with nullable integer columns."""
    return table.to_pandas(types_mapper=_nullable)


def stream_table(obj: Any) -> pa.Table:
    """An Arrow table from a table or an object with ``__arrow_c_stream__``
    (the interval kernel's tables), through a stream reader: ``pa.table()``
    would import pandas to check for a DataFrame. Used by the reports and by
    ``ztwin ingest``, which does not import the reports."""
    if isinstance(obj, pa.Table):
        return obj
    return pa.RecordBatchReader.from_stream(obj).read_all()
