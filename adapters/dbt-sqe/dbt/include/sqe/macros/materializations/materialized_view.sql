{# A materialized_view model is SQE's materialized view: an Iceberg view plus a storage table that
   holds its rows (docs/sql.md). dbt-adapters decides what a run does (materialized_view_get_build_sql):
   create it; replace it (--full-refresh, another relation type, a changed query); apply a changed
   max_staleness or comment in place; or refresh it. A refresh with no source moved since the last
   one commits nothing, and reading it never gives rows staler than max_staleness allows. There is
   no intermediate or backup relation: each step is one statement. #}
{% materialization materialized_view, adapter='sqe' %}
  {%- set query_tag = set_query_tag() -%}
  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set target_relation = this.incorporate(type=this.MaterializedView) -%}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}

  {%- set build_sql = materialized_view_get_build_sql(existing_relation, target_relation, none, none) -%}
  {% if build_sql == '' %}
    {{ materialized_view_execute_no_op(target_relation) }}
  {% else %}
    {{ materialized_view_execute_build_sql(build_sql, existing_relation, target_relation, post_hooks) }}
  {% endif %}

  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {% do unset_query_tag(query_tag) %}
  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}

{# CREATE [OR REPLACE] MATERIALIZED VIEW with the model's comment (persist_docs) and max_staleness. #}
{% macro sqe_materialized_view_sql(replace, relation, sql) -%}
  {{ sqe_sql_header() }}
  create {{ 'or replace ' if replace }}materialized view {{ relation.render() }}
  {{ sqe_relation_comment() }}
  {%- set max_staleness = config.get('max_staleness') %}
  {%- if max_staleness is not none %}
  with (max_staleness = {{ sqe_string_literal(max_staleness) }})
  {%- endif %}
  as
  {{ sql }}
{%- endmacro %}

{% macro sqe__get_create_materialized_view_as_sql(relation, sql) -%}
  {{ sqe_materialized_view_sql(False, relation, sql) }}
{%- endmacro %}

{% macro sqe__get_replace_materialized_view_sql(relation, sql) -%}
  {{ sqe_materialized_view_sql(True, relation, sql) }}
{%- endmacro %}

{% macro sqe__refresh_materialized_view(relation) -%}
  refresh materialized view {{ relation.render() }}
{%- endmacro %}

{% macro sqe__drop_materialized_view(relation) -%}
  drop materialized view if exists {{ relation.render() }}
{%- endmacro %}

{# max_staleness and the comment, compared with SHOW CREATE MATERIALIZED VIEW, change in place; the
   query, compared by its plan, needs a replace. None when nothing changed. #}
{% macro sqe__get_materialized_view_configuration_changes(existing_relation, new_config) -%}
  {%- set comment = model.description if new_config.persist_relation_docs() and model.description else none -%}
  {%- do return(adapter.materialized_view_changes(existing_relation, sql, new_config.get('max_staleness'), comment)) -%}
{%- endmacro %}

{# CREATE OR REPLACE with the same query keeps the storage table (a refresh of it, which commits
   nothing when no source moved) and takes the new properties: SQE's ALTER of a materialized view. #}
{% macro sqe__get_alter_materialized_view_as_sql(relation, configuration_changes, sql, existing_relation, backup_relation, intermediate_relation) -%}
  {%- if configuration_changes.requires_full_refresh -%}
    {{ get_replace_sql(existing_relation, relation, sql) }}
  {%- else -%}
    {{ sqe_materialized_view_sql(True, relation, sql) }}
  {%- endif -%}
{%- endmacro %}
