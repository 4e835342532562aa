{# CREATE TABLE ... AS and CREATE VIEW, with SQE's table options. #}

{% macro sqe_string_literal(value) -%}
  '{{ value | string | replace("'", "''") }}'
{%- endmacro %}

{% macro sqe_relation_comment() -%}
  {%- if config.persist_relation_docs() and model.description -%}
    comment {{ sqe_string_literal(model.description) }}
  {%- endif -%}
{%- endmacro %}

{# PARTITIONED BY, SORTED BY and WITH (...) from partitioned_by, sorted_by and table_properties. #}
{% macro sqe_table_options() -%}
  {%- set partitioned_by = adapter.partition_terms(config.get('partitioned_by')) -%}
  {%- set sorted_by = adapter.partition_terms(config.get('sorted_by')) -%}
  {%- if partitioned_by %}
  partitioned by ({{ partitioned_by | join(', ') }})
  {%- endif %}
  {%- if sorted_by %}
  sorted by ({{ sorted_by | join(', ') }})
  {%- endif %}
  {{ adapter.table_properties_sql(config.get('table_properties')) }}
{%- endmacro %}

{% macro sqe_sql_header() -%}
  {%- set sql_header = config.get('sql_header', none) -%}
  {%- if sql_header is not none -%}
  {{ sql_header | trim | trim(';') }};
  {%- endif -%}
{%- endmacro %}

{# A model's table as one statement: CREATE OR REPLACE TABLE is one Iceberg commit that keeps the
   table's history, with the model's contract (NOT NULL) and docs (table and column comments) in
   it. A scratch table (temporary=True) gets none of the model's options. #}
{% macro sqe__create_table_as(temporary, relation, sql) -%}
  {{ sqe_sql_header() }}
  {%- if temporary %}
  create table {{ relation.render() }} as
  {{ sql }}
  {%- else %}
  {%- set enforced = config.get('contract').enforced -%}
  {%- set with_comments = config.persist_column_docs() and model.columns -%}
  {%- if enforced -%}
    {{ get_assert_columns_equivalent(sql) }}
    {%- set names = model.columns.values() | map(attribute='name') | list -%}
  {%- elif with_comments -%}
    {%- set names = adapter.get_column_schema_from_query(get_empty_subquery_sql(sql, config.get('sql_header'))) | map(attribute='name') | list -%}
  {%- endif %}
  create or replace table {{ relation.render() }}
  {%- if enforced or with_comments %}
  {{ adapter.column_list_sql(names, model.columns, model.get('constraints', []), with_comments, not enforced) }}
  {%- endif %}
  {{ sqe_relation_comment() }}
  {{- sqe_table_options() }}
  as
  {%- if enforced %}
  select
  {%- for column in model.columns.values() %}
    {%- set quoted = adapter.quote(column['name']) if column.get('quote') else column['name'] %}
    cast({{ quoted }} as {{ column['data_type'] }}) as {{ quoted }}{{ "," if not loop.last }}
  {%- endfor %}
  from (
    {{ sql }}
  ) as model_subq
  {%- else %}
  {{ sql }}
  {%- endif %}
  {%- endif %}
{%- endmacro %}

{% macro sqe__create_view_as(relation, sql) -%}
  {{ sqe_sql_header() }}
  create or replace view {{ relation.render() }}
  {%- set contract_config = config.get('contract') %}
  {%- if contract_config.enforced %}
    {{ get_assert_columns_equivalent(sql) }}
  {%- endif %}
  {{ sqe_relation_comment() }}
  as
  {{ sql }}
{%- endmacro %}
