{# dbt docs and source freshness read SQE's information_schema. Relations dbt-sqe makes for a
   single run (`__dbt_tmp` in the name) are left out. #}

{% macro sqe_information_schema(database, view) -%}
  {{ adapter.quote(database) }}.information_schema.{{ view }}
{%- endmacro %}

{% macro sqe_catalog_sql(database, relation_condition) -%}
  select
    t.table_catalog as table_database,
    t.table_schema as table_schema,
    t.table_name as table_name,
    t.table_type as table_type,
    t.comment as table_comment,
    c.column_name as column_name,
    c.ordinal_position as column_index,
    c.data_type as column_type,
    c.comment as column_comment,
    cast(null as varchar) as table_owner
  from {{ sqe_information_schema(database, 'tables') }} as t
  join {{ sqe_information_schema(database, 'columns') }} as c
    on c.table_catalog = t.table_catalog
   and c.table_schema = t.table_schema
   and c.table_name = t.table_name
  where ({{ relation_condition }})
    and t.table_name not like '%\_\_dbt\_tmp%' escape '\'
  order by t.table_schema, t.table_name, c.ordinal_position
{%- endmacro %}

{% macro sqe__get_catalog(information_schema, schemas) -%}
  {%- set conditions = [] -%}
  {%- for schema in schemas -%}
    {%- do conditions.append("t.table_schema ilike " ~ sqe_string_literal(schema)) -%}
  {%- endfor -%}
  {%- call statement('catalog', fetch_result=True) -%}
    {{ sqe_catalog_sql(information_schema.database, conditions | join(' or ') if conditions else 'false') }}
  {%- endcall -%}
  {{ return(load_result('catalog').table) }}
{%- endmacro %}

{% macro sqe_relations_condition(relations, schema_column='table_schema', name_column='table_name') -%}
  {%- set conditions = [] -%}
  {%- for relation in relations -%}
    {%- if relation.identifier -%}
      {%- do conditions.append("(" ~ schema_column ~ " = " ~ sqe_string_literal(relation.schema) ~ " and " ~ name_column ~ " = " ~ sqe_string_literal(relation.identifier) ~ ")") -%}
    {%- else -%}
      {%- do conditions.append(schema_column ~ " = " ~ sqe_string_literal(relation.schema)) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ conditions | join(' or ') if conditions else 'false' }}
{%- endmacro %}

{% macro sqe__get_catalog_relations(information_schema, relations) -%}
  {%- call statement('catalog', fetch_result=True) -%}
    {{ sqe_catalog_sql(information_schema.database, sqe_relations_condition(relations, 't.table_schema', 't.table_name')) }}
  {%- endcall -%}
  {{ return(load_result('catalog').table) }}
{%- endmacro %}

{# Last modified = the time of the table's current snapshot (information_schema.tables.last_altered). #}
{% macro sqe__get_relation_last_modified(information_schema, relations) -%}
  {%- call statement('last_modified', fetch_result=True) -%}
    select
      table_schema as "schema",
      table_name as identifier,
      last_altered as last_modified,
      {{ current_timestamp() }} as snapshotted_at
    from {{ sqe_information_schema(information_schema.database, 'tables') }}
    where {{ sqe_relations_condition(relations) }}
  {%- endcall -%}
  {{ return(load_result('last_modified')) }}
{%- endmacro %}
