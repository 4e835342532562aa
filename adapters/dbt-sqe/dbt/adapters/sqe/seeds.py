"""A seed's CSV rows (as dbt reads them into agate) as an Arrow table of its SQE table's types."""

from __future__ import annotations

import datetime
import decimal
from typing import TYPE_CHECKING, List

import pyarrow as pa
import pyarrow.compute as pc

if TYPE_CHECKING:
    import agate


def arrow_table(agate_table: "agate.Table", schema: pa.Schema) -> pa.Table:
    names = list(agate_table.column_names)
    table_columns = {field.name.lower(): field for field in schema}
    fields, arrays = [], []
    for index, name in enumerate(names):
        field = table_columns.get(name.lower())
        if field is None:
            raise ValueError(f"The seed's column {name} is not in its table ({', '.join(schema.names)})")
        values = [row[index] for row in agate_table.rows]
        arrays.append(_array(values, field.type, name))
        fields.append(pa.field(field.name, field.type))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _array(values: List, arrow_type: pa.DataType, name: str) -> pa.Array:
    if all(v is None for v in values):
        return pa.nulls(len(values), arrow_type)
    try:
        return pa.array([_python_value(v, arrow_type) for v in values], type=arrow_type)
    except (pa.ArrowException, TypeError, ValueError, decimal.InvalidOperation):
        # Text (a column_types override, or a format Python did not parse) goes through Arrow's cast.
        text = pa.array([None if v is None else _text(v) for v in values], type=pa.string())
        try:
            return pc.cast(text, arrow_type)
        except pa.ArrowException as e:
            if pa.types.is_date(arrow_type):
                # A date column of timestamps keeps their dates, as a SQL cast does.
                try:
                    return pc.cast(pc.cast(text, pa.timestamp("us")), arrow_type)
                except pa.ArrowException:
                    pass
            raise ValueError(f"Seed column {name}: cannot read its values as {arrow_type}: {e}") from e


def _python_value(value, arrow_type: pa.DataType):
    if value is None:
        return None
    if pa.types.is_integer(arrow_type) and isinstance(value, decimal.Decimal):
        if value != value.to_integral_value():
            raise ValueError(f"{value} is not an integer")
        return int(value)
    if pa.types.is_floating(arrow_type) and isinstance(value, decimal.Decimal):
        return float(value)
    if pa.types.is_decimal(arrow_type) and isinstance(value, decimal.Decimal):
        return value.quantize(decimal.Decimal(1).scaleb(-arrow_type.scale))
    if (pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type)) and not isinstance(value, str):
        return _text(value)
    if pa.types.is_timestamp(arrow_type) and isinstance(value, datetime.datetime) and arrow_type.tz and value.tzinfo is None:
        return value.replace(tzinfo=datetime.timezone.utc)
    return value


def _text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat(sep=" ") if isinstance(value, datetime.datetime) else value.isoformat()
    return str(value)
