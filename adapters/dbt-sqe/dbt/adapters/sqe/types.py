"""SQE's SQL type names for Arrow types, as SQE writes them (Trino's spelling): information_schema
`data_type`, the Flight SQL TYPE_NAME column metadata, and what CAST accepts."""

from __future__ import annotations

import re

import pyarrow as pa

TYPE_NAME_KEY = b"ARROW:FLIGHT:SQL:TYPE_NAME"

_SIMPLE = {
    pa.bool_(): "boolean",
    pa.int8(): "tinyint",
    pa.int16(): "smallint",
    pa.int32(): "integer",
    pa.int64(): "bigint",
    pa.float32(): "real",
    pa.float64(): "double",
    pa.string(): "varchar",
    pa.large_string(): "varchar",
    pa.binary(): "varbinary",
    pa.large_binary(): "varbinary",
    pa.date32(): "date",
}


def sql_type_of_arrow(arrow_type: pa.DataType) -> str:
    """The SQE type of values of an Arrow type, as SQE names it."""
    if arrow_type in _SIMPLE:
        return _SIMPLE[arrow_type]
    if pa.types.is_decimal(arrow_type):
        return f"decimal({arrow_type.precision},{arrow_type.scale})"
    if pa.types.is_timestamp(arrow_type):
        return "timestamp(6) with time zone" if arrow_type.tz else "timestamp(6)"
    if pa.types.is_time(arrow_type):
        return "time(3)"
    if pa.types.is_fixed_size_binary(arrow_type):
        return f"binary({arrow_type.byte_width})"
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        return f"array({sql_type_of_arrow(arrow_type.value_type)})"
    if pa.types.is_map(arrow_type):
        return f"map({sql_type_of_arrow(arrow_type.key_type)}, {sql_type_of_arrow(arrow_type.item_type)})"
    if pa.types.is_struct(arrow_type):
        fields = ", ".join(f"{_field_name(f.name)} {sql_type_of_arrow(f.type)}" for f in arrow_type)
        return f"row({fields})"
    return str(arrow_type)


def _field_name(name: str) -> str:
    """A row field's name as Trino writes it: quoted unless it is a plain lower-case identifier."""
    if re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        return name
    return '"' + name.replace('"', '""') + '"'


def sql_type_of_field(field: pa.Field) -> str:
    """A result column's SQE type: the server's own name when it sent one."""
    metadata = field.metadata or {}
    if TYPE_NAME_KEY in metadata:
        return metadata[TYPE_NAME_KEY].decode()
    return sql_type_of_arrow(field.type)
