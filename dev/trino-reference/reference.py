"""Asks a running Trino for its function list and its answer to every case of cases.py.

Writes, into --out:
  functions.tsv  SHOW FUNCTIONS: name, return type, argument types, function type (one line each)
  answers.tsv    id, SQL, result type, value as canonical JSON (or !ERROR_NAME when Trino fails it)

Canonical JSON (TrinoReferenceTest writes SQE's values the same way): NULL is null, booleans and
integers as JSON, doubles and reals as JSON numbers ("NaN", "Infinity", "-Infinity" as strings),
decimals, dates, times, timestamps, JSON and UUIDs as the text Trino sends, varbinary as "x:" and
lower-case hex, arrays and rows as lists, maps as lists of [key, value] sorted by the key's JSON.
"""

import argparse
import base64
import json
import math
import sys
import time
from pathlib import Path

import trino

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cases import cases  # noqa: E402


def canonical(value):
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if isinstance(value, (bytes, bytearray)):
        return "x:" + value.hex()
    if isinstance(value, dict):
        pairs = [[canonical(k), canonical(v)] for k, v in value.items()]
        return sorted(pairs, key=lambda p: json.dumps(p[0], sort_keys=True))
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    return str(value)


def connect(port):
    deadline = time.time() + 600
    while True:
        try:
            connection = trino.dbapi.connect(
                host="127.0.0.1", port=port, user="reference", catalog="memory", schema="default",
                legacy_primitive_types=True)
            cursor = connection.cursor()
            cursor.execute("SELECT 1")
            cursor.fetchall()
            return connection
        except Exception as error:  # the server is starting
            if time.time() > deadline:
                raise SystemExit(f"Trino did not start: {error}")
            time.sleep(2)


def clean(text):
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    connection = connect(args.port)
    cursor = connection.cursor()

    cursor.execute("SELECT version()")
    version = cursor.fetchall()[0][0]
    cursor.execute("SHOW FUNCTIONS")
    functions = cursor.fetchall()
    with open(args.out / "functions.tsv", "w", encoding="utf-8") as f:
        f.write(f"# SHOW FUNCTIONS of Trino {version} with no plugin but the memory connector (dev/trino-reference)\n")
        f.write("name\treturn_type\targument_types\tfunction_type\n")
        for row in functions:
            f.write("\t".join(clean(str(c)) for c in row[:4]) + "\n")

    answered = failed = 0
    with open(args.out / "answers.tsv", "w", encoding="utf-8") as f:
        f.write(f"# Trino {version}'s answers to dev/trino-reference/cases.py (generate.sh writes this file)\n")
        f.write("id\tsql\ttype\tanswer\n")
        for case_id, sql in cases():
            try:
                cursor.execute(sql)
                rows = cursor.fetchall()
                if len(rows) != 1 or len(rows[0]) != 1:
                    raise SystemExit(f"{case_id}: a case must give one row of one column: {sql}")
                result_type = cursor.description[0][1]
                value = rows[0][0]
                if result_type == "varbinary" and isinstance(value, str):  # sent as base64
                    value = base64.b64decode(value)
                answer = json.dumps(canonical(value), ensure_ascii=False, sort_keys=True)
                answered += 1
            except trino.exceptions.TrinoQueryError as error:
                answer = "!" + error.error_name
                result_type = ""
                failed += 1
            f.write(f"{case_id}\t{clean(sql)}\t{result_type}\t{clean(answer)}\n")
    print(f"Trino {version}: {len(functions)} function signatures, {answered} answers, {failed} errors -> {args.out}")


if __name__ == "__main__":
    main()
