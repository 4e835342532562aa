"""dbt-trino's own functional suite (its tests/functional/adapter) against SQE's Trino endpoint.

The `run` script next to this file puts dbt-trino's tests at a pinned commit in a scratch
directory and this file in place of their conftest.py: the same fixtures and markers, with the
profile pointed at one SQE server (TLS, the Iceberg catalog) instead of a Trino server.
"""

import pytest
import trino

from sqe_server import running_trino_server

pytest_plugins = ["dbt.tests.fixtures.project"]

# dbt-trino's CI runs the trino_starburst profile against Trino ("trino" engine): the tests it
# skips there are skipped here too.
PROFILE = "trino_starburst"
ENGINE = "trino"


def pytest_collection_modifyitems(config, items):
    for item in items:
        marker = item.get_closest_marker("skip_profile")
        if marker and PROFILE in marker.args:
            item.add_marker(pytest.mark.skip(reason=f"skipped on {PROFILE} profile"))
        marker = item.get_closest_marker("skip_engine")
        if marker and ENGINE in marker.args:
            item.add_marker(pytest.mark.skip(reason=f"skipped on {ENGINE} engine"))


@pytest.fixture(scope="session")
def trino_endpoint(tmp_path_factory):
    with running_trino_server(tmp_path_factory.mktemp("sqe-data"), tmp_path_factory.mktemp("tls")) as (_, endpoint):
        yield endpoint


@pytest.fixture(scope="class")
def dbt_profile_target(request, trino_endpoint):
    # SQE has one catalog: tests marked for Trino's postgresql, delta or hive catalogs run on it too.
    target = {
        "type": "trino",
        "method": "ldap",
        "threads": 4,
        "host": trino_endpoint.host,
        "port": trino_endpoint.port,
        "user": trino_endpoint.user,
        "password": trino_endpoint.password,
        "cert": str(trino_endpoint.ca),
        "catalog": "iceberg",
        "schema": "default",
        "timezone": "UTC",
    }
    if request.node.get_closest_marker("prepared_statements_disabled"):
        target["prepared_statements_enabled"] = False
    return target


@pytest.fixture(scope="class")
def trino_connection(dbt_profile_target, trino_endpoint):
    return trino.dbapi.connect(
        host=trino_endpoint.host,
        port=trino_endpoint.port,
        user=trino_endpoint.user,
        auth=trino.auth.BasicAuthentication(trino_endpoint.user, trino_endpoint.password),
        http_scheme="https",
        verify=str(trino_endpoint.ca),
        catalog=dbt_profile_target["catalog"],
        schema=dbt_profile_target["schema"],
    )
