"""The inputs Trino answers: each case is one SQL query that gives one row of one column.

Cases are grouped by family; the id is family.function.n. Values cover the usual, the edges
(empty, NULL, zero, negative, out of range) and the errors. Aggregates read inline VALUES, so no
table is needed.
"""


def calls(function, *argument_lists):
    """One case per argument list: SELECT function(arguments)."""
    return [(function, f"SELECT {function}({args})") for args in argument_lists]


def exprs(name, *expressions):
    return [(name, f"SELECT {e}") for e in expressions]


def agg(function, values, call=None, column="x"):
    """An aggregate over inline rows: SELECT function(x) FROM (VALUES ...) t(x)."""
    call = call or f"{function}({column})"
    return (function, f"SELECT {call} FROM (VALUES {values}) t({column})")


def families():
    f = {}
    f["math"] = (
        calls("abs", "-5", "-5.5", "DOUBLE '-2.5'", "NULL", "BIGINT '-9223372036854775807'")
        + calls("ceil", "1.2", "DOUBLE '-1.5'", "NULL") + calls("ceiling", "1.2")
        + calls("floor", "1.8", "DOUBLE '-1.5'") + calls("round", "2.5", "DOUBLE '2.5'", "-2.5", "1.2345, 2", "1234, -2", "NULL")
        + calls("truncate", "DOUBLE '1.9'", "-1.9", "1.2345, 2")
        + calls("mod", "7, 3", "-7, 3", "7, 0", "DOUBLE '7.5', 2") + calls("power", "2, 10", "2.0, -1", "0, 0")
        + calls("pow", "2, 3") + calls("sqrt", "4", "-1", "DOUBLE '2'") + calls("cbrt", "27")
        + calls("exp", "0", "1") + calls("ln", "1", "0", "-1") + calls("log2", "8") + calls("log10", "1000")
        + calls("log", "2, 8") + calls("sign", "-3", "0", "DOUBLE '2.5'", "-2.50")
        + calls("sin", "0") + calls("cos", "0") + calls("tan", "0") + calls("asin", "1") + calls("acos", "1")
        + calls("atan", "1") + calls("atan2", "1, 1") + calls("sinh", "0") + calls("cosh", "0") + calls("tanh", "0")
        + calls("degrees", "pi()") + calls("radians", "180") + calls("pi", "") + calls("e", "")
        + calls("nan", "") + calls("infinity", "") + calls("is_nan", "nan()", "1e0") + calls("is_finite", "infinity()", "1e0")
        + calls("is_infinite", "infinity()", "1e0") + calls("greatest", "1, 2, 3", "1, NULL, 3", "'a', 'b'")
        + calls("least", "1, 2, 3", "'a', 'b'") + calls("width_bucket", "5.3, 0.2, 10.6, 5", "-1, 0, 10, 5")
        + calls("from_base", "'ff', 16", "'zz', 36", "'g', 16") + calls("to_base", "255, 16", "-10, 2")
        + calls("beta_cdf", "2, 5, 0.5") + calls("inverse_beta_cdf", "2, 5, 0.5")
        + calls("normal_cdf", "0, 1, 1.96") + calls("inverse_normal_cdf", "0, 1, 0.975")
        + calls("wilson_interval_lower", "5, 10, 1.96") + calls("wilson_interval_upper", "5, 10, 1.96")
        + calls("cosine_similarity", "map(array['a'], array[1e0]), map(array['a'], array[2e0])")
        + calls("cosine_distance", "array[1e0, 0e0], array[0e0, 1e0]")
        + calls("euclidean_distance", "array[1e0, 0e0], array[0e0, 1e0]") + calls("dot_product", "array[1e0, 2e0], array[3e0, 4e0]")
        + calls("random", "") + calls("rand", "")
        + exprs("operator", "7 / 2", "7 / 0", "7.0 / 2", "-7 % 3", "DOUBLE '1' / 0", "2147483647 + 1", "9223372036854775807 + 1",
                "CAST(1 AS TINYINT) + CAST(127 AS TINYINT)", "1.5 * 2", "0.1 + 0.2", "DOUBLE '0.1' + DOUBLE '0.2'")
    )
    f["string"] = (
        calls("length", "'hello'", "''", "NULL", "'héllo'") + calls("lower", "'HeLLo'") + calls("upper", "'straße'")
        + calls("concat", "'a', 'b', 'c'", "'a', NULL") + calls("substr", "'hello', 2", "'hello', 2, 3", "'hello', -3", "'hello', 0", "'hello', 10")
        + calls("substring", "'hello', 2, 3") + calls("replace", "'hello', 'l', 'L'", "'hello', 'l'", "'hello', '', 'x'")
        + calls("reverse", "'abc'", "''") + calls("trim", "'  a  '") + calls("ltrim", "'  a  '") + calls("rtrim", "'  a  '")
        + calls("lpad", "'ab', 5, 'xy'", "'abcdef', 3, 'x'", "'ab', 5, ''") + calls("rpad", "'ab', 5, 'xy'")
        + calls("strpos", "'hello', 'l'", "'hello', 'z'", "'hello', 'l', 2", "'hello', ''") + exprs("position", "position('l' IN 'hello')")
        + calls("split_part", "'a,b,c', ',', 2", "'a,b,c', ',', 5", "'a,b,c', ',', 0") + calls("split", "'a,b,c', ','", "'a,b,c', ',', 2", "'', ','")
        + calls("starts_with", "'hello', 'he'", "'hello', 'lo'") + calls("chr", "65", "-1") + calls("codepoint", "'A'")
        + calls("levenshtein_distance", "'kitten', 'sitting'", "'', 'abc'") + calls("hamming_distance", "'abc', 'abd'", "'ab', 'abc'")
        + calls("format", "'%s-%d', 'a', 5", "'%.2f', 3.14159", "'%05d', 42") + calls("concat_ws", "',', 'a', 'b'", "',', 'a', NULL, 'c'")
        + calls("translate", "'abcd', 'bd', 'BD'") + calls("soundex", "'Robert'") + calls("normalize", "'é'")
        + calls("to_utf8", "'ab'") + calls("from_utf8", "X'6162'") + calls("luhn_check", "'79927398713'", "'79927398710'")
        + exprs("concat_operator", "'a' || 'b'", "'a' || NULL")
    )
    f["regexp"] = (
        calls("regexp_like", "'abc', 'b'", "'abc', '^b'", "'abc', '['", "NULL, 'a'")
        + calls("regexp_extract", "'a1b22', '\\d+'", "'a1b22', '(\\d)(\\d)', 2", "'abc', '\\d'", "'abc', '(a)', 2")
        + calls("regexp_extract_all", "'a1b22', '\\d+'", "'a1b22c333', '(\\d)(\\d)', 1", "'abc', '\\d'")
        + calls("regexp_replace", "'a1b22', '\\d+'", "'a1b22', '\\d+', 'X'", "'abc', '(b)', '[$1]'", "'abc', 'x', 'y'")
        + calls("regexp_count", "'a1b22', '\\d'") + calls("regexp_position", "'a1b22', '\\d'", "'a1b22', '\\d', 3", "'abc', 'z'")
        + calls("regexp_split", "'a1b22c', '\\d+'")
        + exprs("like", "'abc' LIKE 'a%'", "'abc' LIKE '_b_'", "'a%c' LIKE 'a\\%c' ESCAPE '\\'")
    )
    f["json"] = (
        calls("json_parse", "'{\"a\": [1, 2]}'", "'[1, \"x\", null]'", "'not json'", "'1.5'")
        + calls("json_format", "json_parse('{\"b\":1,\"a\":2}')", "JSON '[1,2]'")
        + calls("json_extract", "'{\"a\": {\"b\": 3}}', '$.a'", "'{\"a\": [1, 2]}', '$.a[1]'", "'{\"a\": 1}', '$.z'", "'not json', '$.a'")
        + calls("json_extract_scalar", "'{\"a\": {\"b\": 3}}', '$.a.b'", "'{\"a\": \"x\"}', '$.a'", "'{\"a\": [1]}', '$.a'", "'{\"a\": 1}', '$.z'")
        + calls("json_array_length", "'[1, 2, 3]'", "'{}'", "'[]'") + calls("json_array_get", "'[1, 2, 3]', 1", "'[1, 2, 3]', -1", "'[1]', 5")
        + calls("json_array_contains", "'[1, 2, 3]', 2", "'[\"a\"]', 'a'") + calls("json_size", "'{\"a\": {\"b\": 1, \"c\": 2}}', '$.a'")
        + calls("is_json_scalar", "'1'", "'[1]'")
        + exprs("json_query", "json_query('{\"a\": [1, 2]}', 'lax $.a')", "json_query('{\"a\": 1}', 'lax $.z')")
        + exprs("json_value", "json_value('{\"a\": 1}', 'lax $.a')", "json_value('{\"a\": [1]}', 'lax $.a')")
        + exprs("json_exists", "json_exists('{\"a\": 1}', 'lax $.a')", "json_exists('{\"a\": 1}', 'lax $.b')")
        + exprs("json_cast", "CAST(JSON '[1,2]' AS ARRAY(INTEGER))", "CAST(ARRAY[1, 2] AS JSON)", "CAST(JSON '{\"a\":1}' AS MAP(VARCHAR, INTEGER))",
                "CAST(JSON '1' AS VARCHAR)", "CAST(JSON '\"x\"' AS VARCHAR)")
    )
    f["hash"] = (
        calls("md5", "to_utf8('abc')", "to_utf8('')") + calls("sha1", "to_utf8('abc')") + calls("sha256", "to_utf8('abc')")
        + calls("sha512", "to_utf8('abc')") + calls("xxhash64", "to_utf8('abc')") + calls("murmur3", "to_utf8('abc')")
        + calls("crc32", "to_utf8('abc')") + calls("spooky_hash_v2_32", "to_utf8('abc')") + calls("spooky_hash_v2_64", "to_utf8('abc')")
        + calls("hmac_md5", "to_utf8('abc'), to_utf8('key')") + calls("hmac_sha1", "to_utf8('abc'), to_utf8('key')")
        + calls("hmac_sha256", "to_utf8('abc'), to_utf8('key')") + calls("hmac_sha512", "to_utf8('abc'), to_utf8('key')")
        + calls("to_hex", "X'0aff'", "to_utf8('')") + calls("from_hex", "'0aff'", "'0g'") + calls("to_base64", "to_utf8('hello')")
        + calls("from_base64", "'aGVsbG8='", "'!!'") + calls("to_base64url", "X'fbff'") + calls("from_base64url", "'-_8'")
        + calls("to_base32", "to_utf8('hi')") + calls("from_base32", "'NBUQ===='")
        + calls("to_big_endian_64", "1") + calls("from_big_endian_64", "X'0000000000000001'") + calls("to_big_endian_32", "1")
        + calls("from_big_endian_32", "X'00000001'") + calls("to_ieee754_64", "1e0") + calls("from_ieee754_64", "X'3ff0000000000000'")
        + calls("to_ieee754_32", "REAL '1'") + calls("from_ieee754_32", "X'3f800000'")
        + calls("length", "X'0102'") + calls("concat", "X'01', X'02'") + calls("reverse", "X'0102'")
        + calls("substr", "X'010203', 2") + calls("lpad", "X'01', 3, X'00'") + calls("rpad", "X'01', 3, X'00'")
    )
    f["bitwise"] = (
        calls("bitwise_and", "12, 10") + calls("bitwise_or", "12, 10") + calls("bitwise_xor", "12, 10") + calls("bitwise_not", "5")
        + calls("bit_count", "9, 64", "-1, 8", "9, 2") + calls("bitwise_left_shift", "1, 3") + calls("bitwise_right_shift", "8, 3")
        + calls("bitwise_right_shift_arithmetic", "-8, 1")
    )
    f["url"] = (
        calls("url_extract_host", "'http://example.com:8080/a/b?x=1&y=2#frag'", "'not a url'")
        + calls("url_extract_port", "'http://example.com:8080/a'", "'http://example.com/a'")
        + calls("url_extract_path", "'http://example.com/a/b?x=1'") + calls("url_extract_query", "'http://example.com/a?x=1&y=2'")
        + calls("url_extract_fragment", "'http://example.com/a#frag'") + calls("url_extract_protocol", "'https://example.com/'")
        + calls("url_extract_parameter", "'http://example.com/a?x=1&y=2', 'y'", "'http://example.com/a?x=1', 'z'")
        + calls("url_encode", "'a b/c?d=é'") + calls("url_decode", "'a+b%2Fc'", "'%zz'")
    )
    f["conditional"] = (
        exprs("if", "if(1 > 0, 'a', 'b')", "if(NULL, 'a', 'b')", "if(false, 1)")
        + calls("coalesce", "NULL, 2, 3") + calls("nullif", "1, 1", "1, 2")
        + exprs("try", "try(1 / 0)", "try(CAST('x' AS INTEGER))", "try(5)")
        + exprs("try_cast", "try_cast('12' AS INTEGER)", "try_cast('x' AS INTEGER)", "try_cast('2020-02-30' AS DATE)")
        + calls("typeof", "1", "'a'", "1.5")
        + exprs("case", "CASE 1 WHEN 1 THEN 'a' ELSE 'b' END", "CASE WHEN NULL THEN 1 END")
        + exprs("cast", "CAST('12' AS INTEGER)", "CAST('x' AS INTEGER)", "CAST(1.6 AS INTEGER)", "CAST(DOUBLE '2.5' AS BIGINT)",
                "CAST(300 AS TINYINT)", "CAST('2020-02-30' AS DATE)", "CAST(12.345 AS DECIMAL(4, 1))", "CAST(true AS VARCHAR)",
                "CAST('1e3' AS DOUBLE)", "CAST(1e0 AS VARCHAR)", "CAST(123456789012 AS VARCHAR)")
    )
    f["datetime"] = (
        exprs("date_trunc", "date_trunc('month', DATE '2024-05-17')", "date_trunc('hour', TIMESTAMP '2024-05-17 13:45:30.123')",
              "date_trunc('week', DATE '2024-05-17')", "date_trunc('quarter', DATE '2024-05-17')", "date_trunc('year', TIMESTAMP '2024-05-17 13:45:30')",
              "date_trunc('fortnight', DATE '2024-05-17')")
        + exprs("date_add", "date_add('day', 3, DATE '2024-02-27')", "date_add('month', 1, DATE '2024-01-31')",
                "date_add('hour', -2, TIMESTAMP '2024-01-01 01:00:00')", "date_add('millisecond', 1500, TIMESTAMP '2024-01-01 00:00:00.000')")
        + exprs("date_diff", "date_diff('day', DATE '2024-01-01', DATE '2024-03-01')", "date_diff('month', DATE '2024-01-31', DATE '2024-02-29')",
                "date_diff('hour', TIMESTAMP '2024-01-01 00:00:00', TIMESTAMP '2024-01-02 03:00:00')", "date_diff('year', DATE '2024-03-01', DATE '2020-01-01')")
        + exprs("format_datetime", "format_datetime(TIMESTAMP '2024-05-17 13:45:30', 'yyyy-MM-dd HH:mm')",
                "format_datetime(TIMESTAMP '2024-05-17 13:45:30', 'EEE, MMM d')")
        + exprs("date_format", "date_format(TIMESTAMP '2024-05-17 13:45:30', '%Y-%m-%d %H:%i:%s')", "date_format(TIMESTAMP '2024-05-17 13:45:30', '%W %M %e')")
        + exprs("date_parse", "date_parse('2024-05-17 13:45', '%Y-%m-%d %H:%i')", "date_parse('nope', '%Y')")
        + exprs("parse_datetime", "parse_datetime('2024-05-17', 'yyyy-MM-dd')")
        + exprs("from_unixtime", "from_unixtime(0)", "from_unixtime(1700000000.5)", "from_unixtime(0, 'Asia/Tokyo')")
        + exprs("to_unixtime", "to_unixtime(TIMESTAMP '2024-01-01 00:00:00 UTC')", "to_unixtime(from_unixtime(1.5))")
        + exprs("at_timezone", "at_timezone(TIMESTAMP '2024-01-01 00:00:00 UTC', 'America/New_York')")
        + exprs("with_timezone", "with_timezone(TIMESTAMP '2024-01-01 00:00:00', 'Asia/Tokyo')")
        + exprs("from_iso8601_timestamp", "from_iso8601_timestamp('2024-05-17T13:45:30Z')", "from_iso8601_timestamp('2024-05-17T13:45:30+02:00')",
                "from_iso8601_timestamp('nope')")
        + exprs("from_iso8601_date", "from_iso8601_date('2024-05-17')", "from_iso8601_date('2024-W20-5')")
        + exprs("to_iso8601", "to_iso8601(DATE '2024-05-17')", "to_iso8601(TIMESTAMP '2024-05-17 13:45:30.123')")
        + exprs("current_timezone", "typeof(current_timezone())")
        + exprs("extract", "extract(year FROM DATE '2024-05-17')", "extract(dow FROM DATE '2024-05-19')", "extract(doy FROM DATE '2024-05-17')",
                "extract(week FROM DATE '2024-01-01')")
        + calls("year", "DATE '2024-05-17'") + calls("quarter", "DATE '2024-05-17'") + calls("month", "DATE '2024-05-17'")
        + calls("week", "DATE '2024-05-17'") + calls("week_of_year", "DATE '2024-05-17'") + calls("day", "DATE '2024-05-17'")
        + calls("day_of_month", "DATE '2024-05-17'") + calls("day_of_week", "DATE '2024-05-19'") + calls("dow", "DATE '2024-05-19'")
        + calls("day_of_year", "DATE '2024-05-17'") + calls("doy", "DATE '2024-05-17'") + calls("hour", "TIMESTAMP '2024-05-17 13:45:30'")
        + calls("minute", "TIMESTAMP '2024-05-17 13:45:30'") + calls("second", "TIMESTAMP '2024-05-17 13:45:30'")
        + calls("millisecond", "TIMESTAMP '2024-05-17 13:45:30.123'") + calls("year_of_week", "DATE '2024-12-30'") + calls("yow", "DATE '2024-12-30'")
        + calls("last_day_of_month", "DATE '2024-02-10'") + calls("date", "'2024-05-17'", "TIMESTAMP '2024-05-17 13:45:30'")
        + calls("from_unixtime_nanos", "1000000000") + calls("to_milliseconds", "INTERVAL '1' DAY")
        + calls("human_readable_seconds", "3762") + calls("parse_duration", "'3.5h'") + calls("to_milliseconds", "INTERVAL '2' SECOND")
        + exprs("arithmetic", "DATE '2024-01-31' + INTERVAL '1' MONTH", "TIMESTAMP '2024-01-01 00:00:00' - INTERVAL '1' HOUR",
                "DATE '2024-03-01' - DATE '2024-02-01'")
    )
    f["array"] = (
        calls("cardinality", "ARRAY[1, 2, 3]", "ARRAY[]", "NULL") + calls("element_at", "ARRAY[1, 2, 3], 2", "ARRAY[1, 2, 3], -1", "ARRAY[1, 2, 3], 5", "ARRAY[1], 0")
        + exprs("subscript", "ARRAY[1, 2, 3][2]", "ARRAY[1, 2, 3][5]")
        + calls("contains", "ARRAY[1, 2, 3], 2", "ARRAY[1, NULL], 3", "ARRAY[1, 2], NULL")
        + calls("array_distinct", "ARRAY[1, 2, 2, NULL, NULL]") + calls("array_max", "ARRAY[1, 3, 2]", "ARRAY[1, NULL]") + calls("array_min", "ARRAY[1, 3, 2]")
        + calls("array_position", "ARRAY[1, 2, 3], 3", "ARRAY[1, 2], 5") + calls("array_remove", "ARRAY[1, 2, 1], 1")
        + calls("array_sort", "ARRAY[3, 1, NULL, 2]", "ARRAY['b', 'a']") + calls("array_join", "ARRAY['a', 'b', NULL], ','", "ARRAY['a', NULL], ',', 'x'")
        + calls("array_union", "ARRAY[1, 2], ARRAY[2, 3]") + calls("array_intersect", "ARRAY[1, 2, 2], ARRAY[2, 3]") + calls("array_except", "ARRAY[1, 2], ARRAY[2]")
        + calls("arrays_overlap", "ARRAY[1, 2], ARRAY[2, 3]", "ARRAY[1], ARRAY[3]") + calls("concat", "ARRAY[1], ARRAY[2, 3]")
        + calls("flatten", "ARRAY[ARRAY[1, 2], ARRAY[3]]") + calls("reverse", "ARRAY[1, 2, 3]") + calls("slice", "ARRAY[1, 2, 3, 4], 2, 2", "ARRAY[1, 2, 3], -2, 5")
        + calls("sequence", "1, 5", "5, 1", "1, 10, 3", "DATE '2024-01-01', DATE '2024-01-03'", "1, 5, 0")
        + calls("repeat", "'a', 3", "1, 0") + calls("zip", "ARRAY[1, 2], ARRAY['a', 'b']")
        + calls("combinations", "ARRAY[1, 2, 3], 2") + calls("ngrams", "ARRAY['a', 'b', 'c'], 2") + calls("trim_array", "ARRAY[1, 2, 3], 1")
        + calls("cardinality", "ARRAY[NULL]") + calls("arrays_overlap", "ARRAY[NULL], ARRAY[1]")
        + exprs("array_concat_operator", "ARRAY[1] || ARRAY[2]", "ARRAY[1] || 2")
        + exprs("transform", "transform(ARRAY[1, 2, 3], x -> x * 2)", "transform(ARRAY['a', NULL], x -> x || '!')")
        + exprs("filter", "filter(ARRAY[1, 2, 3, 4], x -> x % 2 = 0)", "filter(ARRAY[1, NULL], x -> x IS NULL)")
        + exprs("reduce", "reduce(ARRAY[1, 2, 3], 0, (s, x) -> s + x, s -> s)", "reduce(ARRAY[], 5, (s, x) -> s + x, s -> s * 2)")
        + exprs("zip_with", "zip_with(ARRAY[1, 2], ARRAY[10, 20], (a, b) -> a + b)", "zip_with(ARRAY[1, 2, 3], ARRAY[10], (a, b) -> b)")
        + exprs("any_match", "any_match(ARRAY[1, 2], x -> x > 1)") + exprs("all_match", "all_match(ARRAY[1, 2], x -> x > 1)")
        + exprs("none_match", "none_match(ARRAY[1, 2], x -> x > 5)") + exprs("array_sort_lambda", "array_sort(ARRAY[3, 1, 2], (a, b) -> IF(a < b, 1, IF(a = b, 0, -1)))")
    )
    f["map"] = (
        exprs("map", "map(ARRAY['a', 'b'], ARRAY[1, 2])", "map(ARRAY['a', 'a'], ARRAY[1, 2])", "map()")
        + calls("map_keys", "map(ARRAY['a', 'b'], ARRAY[1, 2])") + calls("map_values", "map(ARRAY['a', 'b'], ARRAY[1, 2])")
        + calls("map_entries", "map(ARRAY['a'], ARRAY[1])") + calls("map_from_entries", "ARRAY[ROW('a', 1), ROW('b', 2)]")
        + calls("map_concat", "map(ARRAY['a'], ARRAY[1]), map(ARRAY['a', 'b'], ARRAY[2, 3])")
        + calls("element_at", "map(ARRAY['a'], ARRAY[1]), 'a'", "map(ARRAY['a'], ARRAY[1]), 'z'")
        + exprs("map_subscript", "map(ARRAY['a'], ARRAY[1])['a']", "map(ARRAY['a'], ARRAY[1])['z']")
        + calls("cardinality", "map(ARRAY['a'], ARRAY[1])")
        + exprs("map_filter", "map_filter(map(ARRAY['a', 'b'], ARRAY[1, 2]), (k, v) -> v > 1)")
        + exprs("transform_keys", "transform_keys(map(ARRAY['a'], ARRAY[1]), (k, v) -> upper(k))")
        + exprs("transform_values", "transform_values(map(ARRAY['a'], ARRAY[1]), (k, v) -> v * 10)")
        + exprs("map_zip_with", "map_zip_with(map(ARRAY['a'], ARRAY[1]), map(ARRAY['a'], ARRAY[2]), (k, a, b) -> a + b)")
        + calls("multimap_from_entries", "ARRAY[ROW('a', 1), ROW('a', 2)]")
    )
    f["aggregate"] = [
        agg("count", "1, 2, NULL"), agg("count", "1, 2, NULL", "count(*)"), agg("sum", "1, 2, NULL"), agg("sum", "1.5, 2.25"),
        agg("avg", "1, 2"), agg("avg", "1.5, 2.25"), agg("min", "3, 1, 2"), agg("max", "'a', 'c', 'b'"),
        agg("count_if", "true, false, NULL, true", "count_if(x)"), agg("bool_and", "true, false", "bool_and(x)"),
        agg("bool_or", "true, false", "bool_or(x)"), agg("every", "true, true", "every(x)"),
        agg("arbitrary", "5, 5", "arbitrary(x)"), agg("any_value", "5, 5", "any_value(x)"),
        agg("max_by", "(1, 'a'), (3, 'b'), (2, 'c')", "max_by(y, x)", "x, y"), agg("min_by", "(1, 'a'), (3, 'b')", "min_by(y, x)", "x, y"),
        agg("max_by", "(1, 'a'), (3, 'b'), (2, 'c')", "max_by(y, x, 2)", "x, y"),
        agg("approx_distinct", "1, 2, 2, 3, NULL", "approx_distinct(x)"), agg("approx_percentile", "1, 2, 3, 4, 5", "approx_percentile(x, 0.5)"),
        agg("histogram", "'a', 'b', 'a'", "histogram(x)"), agg("map_agg", "('a', 1), ('b', 2)", "map_agg(k, v)", "k, v"),
        agg("array_agg", "3, 1, 2", "array_agg(x ORDER BY x)"), agg("listagg", "'a', 'b'", "listagg(x, ',') WITHIN GROUP (ORDER BY x)"),
        agg("stddev", "1e0, 2e0, 3e0, 4e0"), agg("stddev_pop", "1e0, 2e0, 3e0, 4e0"), agg("stddev_samp", "1e0, 2e0"),
        agg("variance", "1e0, 2e0, 3e0, 4e0"), agg("var_pop", "1e0, 2e0"), agg("var_samp", "1e0, 2e0"),
        agg("corr", "(1e0, 2e0), (2e0, 4e0), (3e0, 7e0)", "corr(x, y)", "x, y"), agg("covar_pop", "(1e0, 2e0), (2e0, 4e0)", "covar_pop(x, y)", "x, y"),
        agg("covar_samp", "(1e0, 2e0), (2e0, 4e0)", "covar_samp(x, y)", "x, y"), agg("regr_slope", "(1e0, 2e0), (2e0, 4e0)", "regr_slope(y, x)", "x, y"),
        agg("regr_intercept", "(1e0, 2e0), (2e0, 4e0)", "regr_intercept(y, x)", "x, y"), agg("geometric_mean", "1e0, 4e0", "geometric_mean(x)"),
        agg("bitwise_and_agg", "12, 10", "bitwise_and_agg(x)"), agg("bitwise_or_agg", "12, 10", "bitwise_or_agg(x)"),
        agg("bitwise_xor_agg", "12, 10", "bitwise_xor_agg(x)"), agg("checksum", "1, 2", "typeof(checksum(x))"),
        agg("multimap_agg", "('a', 1), ('a', 2)", "multimap_agg(k, v)", "k, v"),
        agg("kurtosis", "1e0, 2e0, 3e0, 10e0", "kurtosis(x)"), agg("skewness", "1e0, 2e0, 3e0, 10e0", "skewness(x)"),
        agg("sum", "9223372036854775807, 1"), agg("avg", "CAST(NULL AS INTEGER)"), agg("count", "CAST(NULL AS INTEGER)"),
    ]
    f["window"] = [
        ("row_number", "SELECT max(r) FROM (SELECT row_number() OVER (ORDER BY x) r FROM (VALUES 1, 2, 3) t(x))"),
        ("rank", "SELECT array_agg(r ORDER BY x) FROM (SELECT x, rank() OVER (ORDER BY x) r FROM (VALUES 1, 1, 2) t(x))"),
        ("dense_rank", "SELECT array_agg(r ORDER BY x) FROM (SELECT x, dense_rank() OVER (ORDER BY x) r FROM (VALUES 1, 1, 2) t(x))"),
        ("percent_rank", "SELECT array_agg(r ORDER BY x) FROM (SELECT x, percent_rank() OVER (ORDER BY x) r FROM (VALUES 1, 2, 3) t(x))"),
        ("cume_dist", "SELECT array_agg(r ORDER BY x) FROM (SELECT x, cume_dist() OVER (ORDER BY x) r FROM (VALUES 1, 2, 3) t(x))"),
        ("ntile", "SELECT array_agg(r ORDER BY x) FROM (SELECT x, ntile(2) OVER (ORDER BY x) r FROM (VALUES 1, 2, 3) t(x))"),
        ("lag", "SELECT array_agg(r ORDER BY x) FROM (SELECT x, lag(x) OVER (ORDER BY x) r FROM (VALUES 1, 2, 3) t(x))"),
        ("lead", "SELECT array_agg(r ORDER BY x) FROM (SELECT x, lead(x, 1, 0) OVER (ORDER BY x) r FROM (VALUES 1, 2, 3) t(x))"),
        ("first_value", "SELECT array_agg(r ORDER BY x) FROM (SELECT x, first_value(x) OVER (ORDER BY x DESC) r FROM (VALUES 1, 2) t(x))"),
        ("last_value", "SELECT array_agg(r ORDER BY x) FROM (SELECT x, last_value(x) OVER (ORDER BY x ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) r FROM (VALUES 1, 2) t(x))"),
        ("nth_value", "SELECT array_agg(r ORDER BY x) FROM (SELECT x, nth_value(x, 2) OVER (ORDER BY x) r FROM (VALUES 1, 2, 3) t(x))"),
    ]
    f["other"] = (
        calls("typeof", "uuid()") + exprs("uuid_cast", "CAST('12151fd2-7586-11e9-8f9e-2a86e4085a59' AS UUID)")
        + exprs("version", "typeof(version())") + exprs("row", "ROW(1, 'a')", "CAST(ROW(1, 'a') AS ROW(x INTEGER, y VARCHAR)).x")
        + exprs("is_distinct", "NULL IS DISTINCT FROM 1", "1 IS NOT DISTINCT FROM 1")
        + exprs("between", "2 BETWEEN 1 AND 3", "'b' BETWEEN 'a' AND 'c'")
        + exprs("in", "2 IN (1, 2)", "NULL IN (1, 2)", "3 IN (1, NULL)")
    )
    f["more"] = (
        calls("format_number", "123", "1234", "123456", "1234567", "-1234567", "999999", "DOUBLE '1234.5'", "0")
        + calls("parse_data_size", "'2.5kB'", "'1MB'", "'12'") + calls("parse_presto_data_size", "'2.5kB'")
        + exprs("uuid", "typeof(uuid())", "length(CAST(uuid() AS VARCHAR))")
        + [agg("approx_most_frequent", "'a', 'b', 'a', 'c', 'a', 'b'", "approx_most_frequent(2, x, 100)"),
           agg("map_union", "map(ARRAY['a'], ARRAY[1]), map(ARRAY['b'], ARRAY[2])", "map_union(x)")]
        + calls("map_entries", "map(ARRAY['a', 'b'], ARRAY[1, 2])")
        + calls("map_from_entries", "ARRAY[ROW('a', 1), ROW('a', 2)]")
        + calls("multimap_from_entries", "ARRAY[ROW('a', 1), ROW('b', 2), ROW('a', 3)]")
        + calls("regexp_extract", "NULL, 'a'", "'abc', NULL") + calls("json_extract_scalar", "'[1, 2]', '$[1]'", "'{\"a\": true}', '$.a'")
        + calls("url_extract_parameter", "'http://x.com/?a=1&a=2', 'a'", "'http://x.com/?a', 'a'")
        + calls("to_base64", "X''") + calls("from_hex", "'AbCd'") + calls("bit_count", "-7, 64")
        + calls("array_sort", "ARRAY[NULL, 'b', NULL, 'a']") + calls("array_distinct", "ARRAY[]")
        + calls("element_at", "ARRAY['a', 'b'], -3") + calls("arrays_overlap", "ARRAY[1, NULL], ARRAY[1]")
        + calls("levenshtein_distance", "'héllo', 'hello'") + calls("split_to_map", "'a=1,b=2', ',', '='", "'a=1,a=2', ',', '='")
        + calls("day_of_week", "TIMESTAMP '2024-05-19 10:00:00'") + calls("last_day_of_month", "TIMESTAMP '2023-02-10 10:00:00'")
        + calls("date_format", "TIMESTAMP '2024-01-05 09:05:03.123', '%d/%c/%y %h:%i %p %f'")
        + calls("week_of_year", "DATE '2021-01-03'") + calls("year_of_week", "DATE '2021-01-03'")
        + exprs("transform", "transform(ARRAY[1, NULL], x -> x IS NULL)", "transform(ARRAY[ARRAY[1, 2]], a -> cardinality(a))")
        + exprs("filter", "filter(ARRAY['a', 'bb', 'ccc'], s -> length(s) > 1)")
        + exprs("zip_with", "zip_with(ARRAY['a', 'b'], ARRAY['x', 'y'], (a, b) -> a || b)")
        + [agg("count_if", "1, 2, 3", "count_if(x > 1)"), agg("approx_distinct", "'a', 'b', 'a'", "approx_distinct(x)"),
           agg("histogram", "1, NULL, 1", "histogram(x)"), agg("geometric_mean", "CAST(NULL AS DOUBLE)", "geometric_mean(x)")]
    )
    return f


def cases():
    """(id, sql) for every case, ids stable across runs as long as cases are only appended."""
    out = []
    for family, items in families().items():
        counts = {}
        for name, sql in items:
            counts[name] = counts.get(name, 0) + 1
            out.append((f"{family}.{name}.{counts[name]}", sql))
    return out
