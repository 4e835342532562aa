"""Generates a dbt project of N models (views, tables and incremental models) over three seeds.

Every model has the same four columns (id, grp, amount, updated_at), so any model can read any
earlier one: the models form a random DAG (seeded, so a given --seed always gives the same
project) in which each reads one or two earlier models. About 40% are views, 35% tables and 25%
incremental (append, merge and delete+insert in turn); every tenth model has unique / not_null
tests. `grow_orders` appends rows to the orders seed with later times, so that a second
`dbt build` has new rows for the incremental models to take in.
"""

import argparse
import csv
import random
from datetime import datetime, timedelta
from pathlib import Path

START = datetime(2024, 1, 1)
STRATEGIES = ["append", "merge", "delete+insert"]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _orders(rng: random.Random, first_id: int, count: int, start: datetime) -> list[list]:
    rows = []
    for i in range(count):
        when = start + timedelta(minutes=i * 7 + rng.randrange(7))
        rows.append([first_id + i, rng.randrange(1, 501), rng.randrange(1, 101), rng.randrange(1, 10), f"{rng.uniform(1, 500):.2f}", when.strftime("%Y-%m-%d %H:%M:%S")])
    return rows


def generate(project: Path, models: int = 200, seed: int = 7, orders: int = 5000, schema: str = "dbt_bench") -> None:
    """Writes the project (dbt_project.yml, profiles.yml, seeds, models) into `project`."""
    rng = random.Random(seed)
    _write(project / "dbt_project.yml", f"""name: sqe_bench
version: "1.0"
config-version: 2
profile: sqe_bench
seed-paths: ["seeds"]
model-paths: ["models"]
seeds:
  sqe_bench:
    orders:
      +column_types: {{order_id: bigint, customer_id: integer, product_id: integer, quantity: integer, price: "decimal(10, 2)", updated_at: timestamp}}
""")
    _write(project / "profiles.yml", f"""sqe_bench:
  target: bench
  outputs:
    bench:
      type: sqe
      host: "{{{{ env_var('SQE_HOST', '127.0.0.1') }}}}"
      port: "{{{{ env_var('SQE_PORT') | as_number }}}}"
      user: "{{{{ env_var('SQE_USER', 'admin') }}}}"
      password: "{{{{ env_var('SQE_PASSWORD') }}}}"
      database: iceberg
      schema: {schema}
      threads: "{{{{ env_var('SQE_BENCH_THREADS', '4') | as_number }}}}"
""")
    seeds = project / "seeds"
    seeds.mkdir(parents=True, exist_ok=True)
    with open(seeds / "customers.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["customer_id", "name", "region"])
        for i in range(1, 501):
            w.writerow([i, f"customer {i}", rng.choice(["north", "south", "east", "west"])])
    with open(seeds / "products.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["product_id", "name", "category"])
        for i in range(1, 101):
            w.writerow([i, f"product {i}", rng.randrange(1, 11)])
    with open(seeds / "orders.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["order_id", "customer_id", "product_id", "quantity", "price", "updated_at"])
        w.writerows(_orders(rng, 1, orders, START))

    out = project / "models"
    # Three staging views give every later model the common columns.
    _write(out / "stg_orders.sql", """{{ config(materialized='view') }}
select o.order_id as id, c.customer_id as grp, cast(o.quantity * o.price as double) as amount, o.updated_at
from {{ ref('orders') }} o join {{ ref('customers') }} c on o.customer_id = c.customer_id
""")
    _write(out / "stg_products.sql", """{{ config(materialized='view') }}
select o.order_id as id, p.category as grp, cast(o.price as double) as amount, o.updated_at
from {{ ref('orders') }} o join {{ ref('products') }} p on o.product_id = p.product_id
""")
    _write(out / "stg_regions.sql", """{{ config(materialized='table') }}
select o.order_id as id, length(c.region) as grp, cast(o.quantity as double) as amount, o.updated_at
from {{ ref('orders') }} o join {{ ref('customers') }} c on o.customer_id = c.customer_id
""")
    names = ["stg_orders", "stg_products", "stg_regions"]
    tests = []
    kinds = {"view": 0, "table": 0, "incremental": 0}
    for i in range(len(names), models):
        name = f"m{i:03d}"
        # Mostly recent parents, so the DAG is deep as well as wide.
        first = names[max(0, len(names) - 1 - int(rng.expovariate(1 / 12)))]
        second = rng.choice(names) if rng.random() < 0.4 else None
        roll = rng.random()
        kind = "view" if roll < 0.40 else "table" if roll < 0.75 else "incremental"
        kinds[kind] += 1
        factor = 1 + rng.randrange(1, 20) / 100
        if second is None:
            body = f"""select id, grp, amount * {factor} as amount, updated_at
from {{{{ ref('{first}') }}}}
where grp % {rng.randrange(2, 7)} <> 0 or amount > {rng.randrange(10, 300)}"""
        else:
            body = f"""select a.id, a.grp, a.amount * {factor} + coalesce(b.amount, 0) as amount, a.updated_at
from {{{{ ref('{first}') }}}} a left join {{{{ ref('{second}') }}}} b on a.id = b.id"""
        if kind == "incremental":
            strategy = STRATEGIES[kinds["incremental"] % len(STRATEGIES)]
            key = "" if strategy == "append" else ", unique_key='id'"
            sql = f"""{{{{ config(materialized='incremental', incremental_strategy='{strategy}'{key}) }}}}
select * from (
{body}
) x
{{% if is_incremental() %}}
where updated_at > (select max(updated_at) from {{{{ this }}}})
{{% endif %}}
"""
        else:
            sql = f"{{{{ config(materialized='{kind}') }}}}\n{body}\n"
        _write(out / f"{name}.sql", sql)
        if i % 10 == 0:
            tests.append(f"""  - name: {name}
    columns:
      - name: id
        data_tests: [not_null{", unique" if kind != "incremental" or "unique_key" in sql else ""}]
""")
        names.append(name)
    _write(out / "schema.yml", "version: 2\nmodels:\n" + "".join(tests))
    kinds["view"] += 2
    kinds["table"] += 1
    (project / "shape.txt").write_text(" ".join(f"{k}={v}" for k, v in kinds.items()) + f" tests={len(tests) * 2}\n")


def grow_orders(project: Path, count: int = 500, seed: int = 8) -> None:
    """Appends `count` orders, later than every existing one, to the orders seed."""
    path = project / "seeds" / "orders.csv"
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    last_id = max(int(r[0]) for r in rows[1:])
    last_time = max(datetime.strptime(r[5], "%Y-%m-%d %H:%M:%S") for r in rows[1:])
    with open(path, "a", newline="") as f:
        csv.writer(f).writerows(_orders(random.Random(seed), last_id + 1, count, last_time + timedelta(hours=1)))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("project", type=Path)
    parser.add_argument("--models", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    generate(args.project, args.models, args.seed)
