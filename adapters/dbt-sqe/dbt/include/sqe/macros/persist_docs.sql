{% macro sqe__alter_relation_comment(relation, relation_comment) -%}
  comment on {{ 'view' if relation.is_view else 'table' }} {{ relation.render() }} is {{ sqe_string_literal(relation_comment) }}
{%- endmacro %}

{% macro sqe__alter_column_comment(relation, column_dict) -%}
  {%- set statements = [] -%}
  {%- for column_name in column_dict if column_dict[column_name]['description'] -%}
    {%- set column = column_dict[column_name] -%}
    {%- set quoted = adapter.quote(column['name']) if column.get('quote') else column['name'] -%}
    {%- do statements.append("comment on column " ~ relation.render() ~ "." ~ quoted ~ " is " ~ sqe_string_literal(column['description'])) -%}
  {%- endfor -%}
  {{ statements | join(";\n") }}
{%- endmacro %}

{# The table or view comment is written by CREATE itself; column comments follow it (on a view,
   each COMMENT ON COLUMN is a new view version with the same SQL). A materialized view's comment
   is its CREATE's alone. #}
{% macro sqe__persist_docs(relation, model, for_relation, for_columns) -%}
  {% if relation.is_materialized_view %}
    {{ return('') }}
  {% endif %}
  {% if for_relation and config.persist_relation_docs() and model.description %}
    {% do run_query(alter_relation_comment(relation, model.description)) %}
  {% endif %}
  {% if for_columns and config.persist_column_docs() and model.columns %}
    {% set existing_columns = adapter.get_columns_in_relation(relation) | map(attribute="name") | map("lower") | list %}
    {% set documented_columns = {} %}
    {% for name in model.columns if name | lower in existing_columns %}
      {% do documented_columns.update({name: model.columns[name]}) %}
    {% endfor %}
    {% set alter_comment_sql = alter_column_comment(relation, documented_columns) %}
    {% if alter_comment_sql | trim | length > 0 %}
      {% do run_query(alter_comment_sql) %}
    {% endif %}
  {% endif %}
{%- endmacro %}
