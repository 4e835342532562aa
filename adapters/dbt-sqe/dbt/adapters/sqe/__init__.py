from dbt.adapters.base import AdapterPlugin

from dbt.adapters.sqe.column import SqeColumn
from dbt.adapters.sqe.connections import SqeConnectionManager, SqeCredentials
from dbt.adapters.sqe.impl import SqeAdapter
from dbt.adapters.sqe.relation import SqeRelation
from dbt.include import sqe

Plugin = AdapterPlugin(adapter=SqeAdapter, credentials=SqeCredentials, include_path=sqe.PACKAGE_PATH)

__all__ = ["Plugin", "SqeAdapter", "SqeColumn", "SqeConnectionManager", "SqeCredentials", "SqeRelation"]
