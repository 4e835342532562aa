{# Schemas, relations and columns. Names are always rendered in full and quoted. #}

{% macro sqe__create_schema(relation) -%}
  {%- call statement('create_schema') -%}
    create schema if not exists {{ relation.without_identifier().include(database=True, schema=True) }}
  {%- endcall -%}
{% endmacro %}

{% macro sqe__drop_schema(relation) -%}
  {%- call statement('drop_schema') -%}
    drop schema if exists {{ relation.without_identifier().include(database=True, schema=True) }} cascade
  {%- endcall -%}
{% endmacro %}

{# Tables dbt-sqe made for one run are dropped with their files (PURGE); others keep them, as
   SQE's DROP TABLE does. #}
{% macro sqe__get_drop_sql(relation) -%}
  {%- if relation.is_materialized_view -%}
  {{ sqe__drop_materialized_view(relation) }}
  {%- elif relation.is_view -%}
  drop view if exists {{ relation.render() }}
  {%- else -%}
  drop table if exists {{ relation.render() }}{% if '__dbt_tmp' in (relation.identifier or '') %} purge{% endif %}
  {%- endif -%}
{%- endmacro %}

{% macro sqe__drop_table(relation) -%}
  drop table if exists {{ relation.render() }}
{%- endmacro %}

{% macro sqe__drop_view(relation) -%}
  drop view if exists {{ relation.render() }}
{%- endmacro %}

{% macro sqe__rename_relation(from_relation, to_relation) -%}
  {% call statement('rename_relation') -%}
    alter {{ 'view' if from_relation.is_view else 'table' }} {{ from_relation.render() }} rename to {{ adapter.quote_as_configured(to_relation.identifier, 'identifier') }}
  {%- endcall %}
{% endmacro %}

{% macro sqe__make_temp_relation(base_relation, suffix) -%}
  {{ return(adapter.scratch_relation(base_relation, suffix)) }}
{%- endmacro %}

{% macro sqe__get_binding_char() -%}
  {{ return('?') }}
{%- endmacro %}

{% macro sqe__current_timestamp() -%}
  current_timestamp
{%- endmacro %}

{# SQE's current_timestamp is a TIMESTAMP(6) in UTC, what all of dbt's variants ask for. #}
{% macro sqe__snapshot_get_time() -%}
  {{ sqe__current_timestamp() }}
{%- endmacro %}

{% macro sqe__current_timestamp_backcompat() -%}
  {{ sqe__current_timestamp() }}
{%- endmacro %}

{% macro sqe__current_timestamp_in_utc_backcompat() -%}
  {{ sqe__current_timestamp() }}
{%- endmacro %}

{% macro sqe__alter_column_type(relation, column_name, new_column_type) -%}
  {# Iceberg widens types in place (INTEGER to BIGINT, REAL to DOUBLE, larger DECIMAL precision). #}
  {% call statement('alter_column_type') -%}
    alter table {{ relation.render() }} alter column {{ adapter.quote(column_name) }} set data type {{ new_column_type }}
  {%- endcall %}
{% endmacro %}

{% macro sqe__alter_relation_add_remove_columns(relation, add_columns, remove_columns) %}
  {% for column in add_columns or [] %}
    {% do run_query("alter table " ~ relation.render() ~ " add column " ~ column.quoted ~ " " ~ column.expanded_data_type) %}
  {% endfor %}
  {% for column in remove_columns or [] %}
    {% do run_query("alter table " ~ relation.render() ~ " drop column " ~ column.quoted) %}
  {% endfor %}
{% endmacro %}

{% macro sqe__get_empty_subquery_sql(select_sql, select_sql_header=none) -%}
  {%- if select_sql_header is not none -%}
  {{ select_sql_header }}
  {%- endif %}
  select * from (
    {{ select_sql }}
  ) as __dbt_sbq
  where false
  limit 0
{%- endmacro %}

{% macro sqe__get_columns_in_query(select_sql) -%}
  {{ return(adapter.get_column_schema_from_query(select_sql) | map(attribute='name') | list) }}
{%- endmacro %}

{# dbt's snapshot macros call this as a macro (hard_deletes: new_record); the adapter reads the
   columns from Flight SQL's GetTables. #}
{% macro sqe__get_columns_in_relation(relation) -%}
  {{ return(adapter.get_columns_in_relation(relation)) }}
{%- endmacro %}


{# A model's `query_tag` config tags the statements that build it in SQE's audit log and
   system.runtime.queries, as dbt-snowflake's does; the profile's `query_tag` (if any) comes back
   after the model. Returns the tag set, for unset_query_tag. #}
{% macro set_query_tag() -%}
  {%- set new_query_tag = config.get('query_tag') -%}
  {%- if new_query_tag -%}
    {%- do run_query("set session query_tag = '" ~ (new_query_tag | replace("'", "''")) ~ "'") -%}
  {%- endif -%}
  {{ return(new_query_tag) }}
{%- endmacro %}

{% macro unset_query_tag(query_tag) -%}
  {%- if query_tag -%}
    {%- set profile_tag = target.get('query_tag') -%}
    {%- if profile_tag -%}
      {%- do run_query("set session query_tag = '" ~ (profile_tag | replace("'", "''")) ~ "'") -%}
    {%- else -%}
      {%- do run_query("reset query_tag") -%}
    {%- endif -%}
  {%- endif -%}
{%- endmacro %}
