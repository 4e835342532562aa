{# dbt's string and aggregate macros in SQE's SQL. #}

{# 'true' / 'false', as PostgreSQL writes them (SQE's CAST writes TRUE / FALSE). #}
{% macro sqe__cast_bool_to_text(field) -%}
  lower(cast({{ field }} as varchar))
{%- endmacro %}

{# SQE's right takes any integer count, from a column too (a BIGINT seed column included). #}
{% macro sqe__right(string_text, length_expression) -%}
  right({{ string_text }}, {{ length_expression }})
{%- endmacro %}

{# SQE's split_part reads the delimiter as text and counts a negative part from the end, as
   PostgreSQL 14 does. #}
{% macro sqe__split_part(string_text, delimiter_text, part_number) -%}
  split_part({{ string_text }}, {{ delimiter_text }}, {{ part_number }})
{%- endmacro %}

{# As Trino: array_agg keeps the order, slice keeps the first limit_num elements, array_join skips
   NULLs as string_agg does. #}
{% macro sqe__listagg(measure, delimiter_text, order_by_clause, limit_num) -%}
  {%- set collected -%}
    array_agg({{ measure }}{% if order_by_clause %} {{ order_by_clause }}{% endif %})
  {%- endset -%}
  {%- if limit_num -%}
    {%- set collected -%} slice({{ collected }}, 1, {{ limit_num }}) {%- endset -%}
  {%- endif -%}
  array_join({{ collected }}, {{ delimiter_text }})
{%- endmacro %}
