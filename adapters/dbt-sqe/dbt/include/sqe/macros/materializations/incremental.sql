{# An incremental model: the first run and --full-refresh are one CREATE OR REPLACE TABLE ... AS;
   later runs are one statement (INSERT or MERGE) that reads the model's query directly, so each run
   lands as one Iceberg commit and no intermediate table is made. Strategies that are not dbt-sqe's
   own get a scratch table, as dbt's default materialization gives them. #}
{% materialization incremental, adapter='sqe' -%}
  {%- set query_tag = set_query_tag() -%}
  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set unique_key = config.get('unique_key') -%}
  {%- set full_refresh_mode = should_full_refresh() or (existing_relation is not none and not existing_relation.is_table) -%}
  {%- set on_schema_change = incremental_validate_on_schema_change(config.get('on_schema_change'), default='ignore') -%}
  {%- set grant_config = config.get('grants') -%}
  {%- set incremental_strategy = config.get('incremental_strategy') or 'default' -%}
  {%- set strategy_macro = adapter.get_incremental_strategy_macro(context, incremental_strategy) -%}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  {% if existing_relation is none or full_refresh_mode %}
    {% if existing_relation is not none and not existing_relation.is_table %}
      {{ adapter.drop_relation(existing_relation) }}
    {% endif %}
    {% set build_sql = get_create_table_as_sql(False, target_relation, sql) %}
  {% else %}
    {% if incremental_strategy in ['default', 'append', 'merge', 'delete+insert', 'microbatch'] %}
      {% set source = "(\n" ~ sql ~ "\n)" %}
    {% else %}
      {% set source = make_temp_relation(target_relation) %}
      {% do run_query(get_create_table_as_sql(True, source, sql)) %}
    {% endif %}
    {% set dest_columns = process_schema_changes(on_schema_change, source, existing_relation) %}
    {% if not dest_columns %}
      {% set dest_columns = adapter.get_columns_in_relation(existing_relation) %}
    {% endif %}
    {% set incremental_predicates = config.get('predicates', none) or config.get('incremental_predicates', none) %}
    {% set build_sql = strategy_macro({
        'target_relation': target_relation,
        'temp_relation': source,
        'unique_key': unique_key,
        'dest_columns': dest_columns,
        'incremental_predicates': incremental_predicates,
    }) %}
    {% if config.get('sql_header') %}
      {% set build_sql = sqe_sql_header() ~ "\n" ~ build_sql %}
    {% endif %}
  {% endif %}

  {% call statement('main') %}
    {{ build_sql }}
  {% endcall %}

  {{ run_hooks(post_hooks, inside_transaction=True) }}
  {% do apply_grants(target_relation, grant_config, should_revoke=should_revoke(existing_relation, full_refresh_mode)) %}
  {% if existing_relation is not none and not full_refresh_mode %}
    {% do persist_docs(target_relation, model) %}
  {% endif %}
  {{ adapter.commit() }}
  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {% do unset_query_tag(query_tag) %}
  {{ return({'relations': [target_relation]}) }}
{%- endmaterialization %}


{# The incremental source is either a relation or a parenthesised query; columns of either. #}
{% macro sqe__check_for_schema_changes(source_relation, target_relation) %}
  {% if source_relation is string %}
    {% set source_columns = adapter.get_column_schema_from_query(source_relation) %}
  {% else %}
    {% set source_columns = adapter.get_columns_in_relation(source_relation) %}
  {% endif %}
  {%- set target_columns = adapter.get_columns_in_relation(target_relation) -%}
  {%- set source_not_in_target = diff_columns(source_columns, target_columns) -%}
  {%- set target_not_in_source = diff_columns(target_columns, source_columns) -%}
  {%- set new_target_types = diff_column_data_types(source_columns, target_columns) -%}
  {%- set schema_changed = source_not_in_target != [] or target_not_in_source != [] or new_target_types != [] -%}
  {% do log("In " ~ target_relation ~ ": schema changed: " ~ schema_changed ~ "; source columns not in target: " ~ source_not_in_target
            ~ "; target columns not in source: " ~ target_not_in_source ~ "; new column types: " ~ new_target_types) %}
  {{ return({
    'schema_changed': schema_changed,
    'source_not_in_target': source_not_in_target,
    'target_not_in_source': target_not_in_source,
    'source_columns': source_columns,
    'target_columns': target_columns,
    'new_target_types': new_target_types,
  }) }}
{% endmacro %}
