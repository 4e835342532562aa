"""SQE's SQL type names for Arrow types, as SQE writes them: information_schema `data_type`, the
Flight SQL TYPE_NAME column metadata, and what CAST accepts."""

from __future__ import annotations

import pyarrow as pa

TYPE_NAME_KEY = b"ARROW:FLIGHT:SQL:TYPE_NAME"

_SIMPLE = {
    pa.bool_(): "BOOLEAN",
    pa.int8(): "TINYINT",
    pa.int16(): "SMALLINT",
    pa.int32(): "INTEGER",
    pa.int64(): "BIGINT",
    pa.float32(): "REAL",
    pa.float64(): "DOUBLE",
    pa.string(): "VARCHAR",
    pa.large_string(): "VARCHAR",
    pa.binary(): "VARBINARY",
    pa.large_binary(): "VARBINARY",
    pa.date32(): "DATE",
}


def sql_type_of_arrow(arrow_type: pa.DataType) -> str:
    """The SQE type of values of an Arrow type, as SQE names it."""
    if arrow_type in _SIMPLE:
        return _SIMPLE[arrow_type]
    if pa.types.is_decimal(arrow_type):
        return f"DECIMAL({arrow_type.precision}, {arrow_type.scale})"
    if pa.types.is_timestamp(arrow_type):
        return "TIMESTAMP(6) WITH TIME ZONE" if arrow_type.tz else "TIMESTAMP(6)"
    if pa.types.is_time(arrow_type):
        return "TIME(3)"
    if pa.types.is_fixed_size_binary(arrow_type):
        return f"BINARY({arrow_type.byte_width})"
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        return f"ARRAY({sql_type_of_arrow(arrow_type.value_type)})"
    if pa.types.is_map(arrow_type):
        return f"MAP({sql_type_of_arrow(arrow_type.key_type)}, {sql_type_of_arrow(arrow_type.item_type)})"
    if pa.types.is_struct(arrow_type):
        fields = ", ".join(f'"{f.name}" {sql_type_of_arrow(f.type)}' for f in arrow_type)
        return f"ROW({fields})"
    return str(arrow_type).upper()


def sql_type_of_field(field: pa.Field) -> str:
    """A result column's SQE type: the server's own name when it sent one."""
    metadata = field.metadata or {}
    if TYPE_NAME_KEY in metadata:
        return metadata[TYPE_NAME_KEY].decode()
    return sql_type_of_arrow(field.type)
