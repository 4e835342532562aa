{# A snapshot run is one MERGE whose source is dbt's staging query (new versions, invalidations and
   hard deletes) read straight from the source and the snapshot table: no staging table, and the
   run lands as one commit. The first run is one CREATE TABLE ... AS. #}
{% materialization snapshot, adapter='sqe' %}
  {%- set query_tag = set_query_tag() -%}
  {%- set target_table = model.get('alias', model.get('name')) -%}
  {%- set strategy_name = config.get('strategy') -%}
  {%- set unique_key = config.get('unique_key') -%}
  {%- set grant_config = config.get('grants') -%}
  {% set target_relation_exists, target_relation = get_or_create_relation(
          database=model.database, schema=model.schema, identifier=target_table, type='table') -%}
  {%- if not target_relation.is_table -%}
    {% do exceptions.relation_wrong_type(target_relation, 'table') %}
  {%- endif -%}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  {% set strategy_macro = strategy_dispatch(strategy_name) %}
  {% set strategy = strategy_macro(model, "snapshotted_data", "source_data", model['config'], target_relation_exists) %}

  {% if not target_relation_exists %}
    {% set build_or_select_sql = build_snapshot_table(strategy, model['compiled_code']) %}
    {% set final_sql = create_table_as(False, target_relation, build_or_select_sql) %}
  {% else %}
    {% set columns = config.get("snapshot_table_column_names") or get_snapshot_table_column_names() %}
    {{ adapter.assert_valid_snapshot_target_given_strategy(target_relation, columns, strategy) }}
    {% set build_or_select_sql = snapshot_staging_table(strategy, sql, target_relation) %}
    {% set staging_columns = adapter.get_column_schema_from_query(build_or_select_sql) %}
    {% set remove_columns = ['dbt_change_type', 'DBT_CHANGE_TYPE', 'dbt_unique_key', 'DBT_UNIQUE_KEY'] %}
    {% if unique_key | is_list %}
      {% for key in strategy.unique_key %}
        {% do remove_columns.append('dbt_unique_key_' + loop.index|string) %}
        {% do remove_columns.append('DBT_UNIQUE_KEY_' + loop.index|string) %}
      {% endfor %}
    {% endif %}
    {% set source_columns = staging_columns | rejectattr('name', 'in', remove_columns) | list %}
    {% set target_names = adapter.get_columns_in_relation(target_relation) | map(attribute='name') | map('lower') | list %}
    {% set missing_columns = [] %}
    {% for column in source_columns if column.name | lower not in target_names %}
      {% do missing_columns.append(column) %}
    {% endfor %}
    {% do create_columns(target_relation, missing_columns) %}
    {% set quoted_source_columns = [] %}
    {% for column in source_columns %}
      {% do quoted_source_columns.append(adapter.quote(column.name)) %}
    {% endfor %}
    {% set final_sql = snapshot_merge_sql(
          target=target_relation,
          source="(\n" ~ build_or_select_sql ~ "\n)",
          insert_cols=quoted_source_columns) %}
  {% endif %}

  {{ check_time_data_types(build_or_select_sql) }}

  {% call statement('main') %}
    {{ final_sql }}
  {% endcall %}

  {{ run_hooks(post_hooks, inside_transaction=True) }}
  {% do apply_grants(target_relation, grant_config, should_revoke=should_revoke(target_relation_exists, full_refresh_mode=False)) %}
  {% if target_relation_exists %}
    {% do persist_docs(target_relation, model) %}
  {% endif %}
  {{ adapter.commit() }}
  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {% do unset_query_tag(query_tag) %}
  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}

{% macro sqe__create_columns(relation, columns) %}
  {% for column in columns %}
    {% call statement() %}
      alter table {{ relation.render() }} add column {{ adapter.quote(column.name) }} {{ column.data_type }}
    {% endcall %}
  {% endfor %}
{% endmacro %}

{# dbt's snapshot MERGE, with the inserted values named through the source's alias. #}
{% macro sqe__snapshot_merge_sql(target, source, insert_cols) -%}
  {%- set columns = config.get("snapshot_table_column_names") or get_snapshot_table_column_names() -%}
  merge into {{ target.render() }} as DBT_INTERNAL_DEST
  using {{ source }} as DBT_INTERNAL_SOURCE
  on DBT_INTERNAL_SOURCE.{{ columns.dbt_scd_id }} = DBT_INTERNAL_DEST.{{ columns.dbt_scd_id }}
  when matched
  {%- if config.get("dbt_valid_to_current") %}
    and ({{ equals("DBT_INTERNAL_DEST." ~ columns.dbt_valid_to, config.get('dbt_valid_to_current')) }} or DBT_INTERNAL_DEST.{{ columns.dbt_valid_to }} is null)
  {%- else %}
    and DBT_INTERNAL_DEST.{{ columns.dbt_valid_to }} is null
  {%- endif %}
    and DBT_INTERNAL_SOURCE.dbt_change_type in ('update', 'delete')
    then update set {{ columns.dbt_valid_to }} = DBT_INTERNAL_SOURCE.{{ columns.dbt_valid_to }}
  when not matched
    and DBT_INTERNAL_SOURCE.dbt_change_type = 'insert'
    then insert ({{ insert_cols | join(', ') }})
    values ({% for column in insert_cols %}DBT_INTERNAL_SOURCE.{{ column }}{{ ", " if not loop.last }}{% endfor %})
{%- endmacro %}
