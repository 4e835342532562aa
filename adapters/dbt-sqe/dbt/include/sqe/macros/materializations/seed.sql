{# A seed is one commit: CREATE OR REPLACE TABLE (the CSV's columns, typed by inference or
   column_types) and a bulk ingest of its rows, in one SQL transaction. #}
{% materialization seed, adapter='sqe' %}
  {%- set query_tag = set_query_tag() -%}
  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set full_refresh_mode = should_full_refresh() -%}
  {%- set grant_config = config.get('grants') -%}
  {%- set agate_table = load_agate_table() -%}
  {%- do store_result('agate_table', response='OK', agate_table=agate_table) -%}

  {% if existing_relation is not none and existing_relation.is_view %}
    {{ exceptions.raise_compiler_error("Cannot seed to '{}', it is a view".format(existing_relation.render())) }}
  {% endif %}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  {%- set select_sql = sqe_seed_columns_sql(model, agate_table) -%}
  {%- set create_sql -%}
    create or replace table {{ target_relation.render() }}
    {{ sqe_relation_comment() }}
    {{- sqe_table_options() }}
    as
    {{ select_sql }}
  {%- endset -%}
  {%- set rows = adapter.load_seed(target_relation, agate_table, create_sql, select_sql) -%}
  {%- set code = 'CREATE' if full_refresh_mode or existing_relation is none else 'INSERT' -%}
  {% call noop_statement('main', code ~ ' ' ~ rows, code, rows) %}
    {{ create_sql }};
    -- then a bulk ingest of {{ rows }} rows
  {% endcall %}

  {{ run_hooks(post_hooks, inside_transaction=True) }}
  {% do apply_grants(target_relation, grant_config, should_revoke=should_revoke(existing_relation, full_refresh_mode)) %}
  {% do persist_docs(target_relation, model, for_relation=False) %}
  {{ adapter.commit() }}
  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {% do unset_query_tag(query_tag) %}
  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}

{# A query with no rows whose columns are the seed's: names from the CSV header, types inferred
   by dbt or given by column_types. #}
{% macro sqe_seed_columns_sql(model, agate_table) -%}
  {%- set column_override = model['config'].get('column_types', {}) -%}
  {%- set quote_seed_column = model['config'].get('quote_columns', None) -%}
  select
  {%- for col_name in agate_table.column_names %}
    {%- set inferred_type = adapter.convert_type(agate_table, loop.index0) %}
    cast(null as {{ column_override.get(col_name, inferred_type) }}) as {{ adapter.quote_seed_column(col_name | string, quote_seed_column) }}{{ "," if not loop.last }}
  {%- endfor %}
  limit 0
{%- endmacro %}
