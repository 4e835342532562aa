"""Columns with SQE's type names, which carry their own parameters (`decimal(10,2)`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Dict

from dbt.adapters.base.column import Column


@dataclass
class SqeColumn(Column):
    TYPE_LABELS: ClassVar[Dict[str, str]] = {
        "STRING": "VARCHAR",
        "TEXT": "VARCHAR",
        "FLOAT": "DOUBLE",
        "INT": "INTEGER",
    }

    @property
    def data_type(self) -> str:
        return self.dtype

    def _base(self) -> str:
        return self.dtype.split("(", 1)[0].strip().upper()

    def is_string(self) -> bool:
        return self._base() in ("VARCHAR", "CHAR", "CHARACTER", "CHARACTER VARYING", "STRING", "TEXT")

    def is_integer(self) -> bool:
        return self._base() in ("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT")

    def is_float(self) -> bool:
        return self._base() in ("REAL", "FLOAT", "DOUBLE", "DOUBLE PRECISION")

    def is_numeric(self) -> bool:
        return self._base() in ("DECIMAL", "NUMERIC")

    def string_size(self) -> int:
        # SQE strings are unbounded; nothing to widen.
        return 2**31 - 1

    def can_expand_to(self, other_column: Column) -> bool:
        return False

    def literal(self, value) -> str:
        return f"cast({value} as {self.data_type})"

    @classmethod
    def string_type(cls, size: int) -> str:
        return "VARCHAR"
