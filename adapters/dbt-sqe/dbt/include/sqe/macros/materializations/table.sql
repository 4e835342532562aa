{# A table model is one CREATE OR REPLACE TABLE ... AS: readers see the old rows until the new ones
   land in one commit, with the model's comments and NOT NULL columns, and the table keeps its
   history. No intermediate or backup relations. #}
{% materialization table, adapter='sqe' %}
  {%- set query_tag = set_query_tag() -%}
  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set grant_config = config.get('grants') -%}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  {% if existing_relation is not none and not existing_relation.is_table %}
    {{ adapter.drop_relation(existing_relation) }}
  {% endif %}

  {% call statement('main') -%}
    {{ get_create_table_as_sql(False, target_relation, sql) }}
  {%- endcall %}

  {{ run_hooks(post_hooks, inside_transaction=True) }}
  {% do apply_grants(target_relation, grant_config, should_revoke=should_revoke(existing_relation, full_refresh_mode=True)) %}
  {{ adapter.commit() }}
  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {% do unset_query_tag(query_tag) %}
  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
