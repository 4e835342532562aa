{# dbt's date macros in SQE's SQL: TIMESTAMPADD / TIMESTAMPDIFF over time units. #}

{% macro sqe_time_unit(datepart) -%}
  {{ return(datepart | replace("'", "") | replace('"', '') | trim | lower) }}
{%- endmacro %}

{# A timestamp, as in PostgreSQL, whether the start is a date, a timestamp or text. #}
{% macro sqe__dateadd(datepart, interval, from_date_or_timestamp) -%}
  timestampadd({{ sqe_time_unit(datepart) }}, cast({{ interval }} as integer), cast({{ from_date_or_timestamp }} as timestamp))
{%- endmacro %}

{# The number of unit boundaries between two times (as dbt defines datediff): both are truncated
   to the unit first, so 23:59 to 00:01 is one day. Microseconds, SQE's precision, need no
   truncation. #}
{% macro sqe__datediff(first_date, second_date, datepart) -%}
  {%- set unit = sqe_time_unit(datepart) -%}
  {%- set first = "cast(" ~ first_date ~ " as timestamp)" -%}
  {%- set second = "cast(" ~ second_date ~ " as timestamp)" -%}
  {%- if unit in ['microsecond', 'nanosecond'] -%}
  timestampdiff({{ unit }}, {{ first }}, {{ second }})
  {%- else -%}
  timestampdiff({{ unit }}, date_trunc('{{ unit }}', {{ first }}), date_trunc('{{ unit }}', {{ second }}))
  {%- endif -%}
{%- endmacro %}

{% macro sqe__date_trunc(datepart, date) -%}
  date_trunc('{{ sqe_time_unit(datepart) }}', {{ date }})
{%- endmacro %}

{% macro sqe__date(year, month, day) -%}
  date '{{ modules.datetime.date(year, month, day).strftime("%Y-%m-%d") }}'
{%- endmacro %}
