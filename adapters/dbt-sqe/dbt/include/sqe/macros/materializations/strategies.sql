{# Incremental strategies, each one statement and so one Iceberg commit. `temp_relation` is the
   model's query in parentheses (or a scratch table for strategies dbt-sqe does not know). #}

{# The unique_key config as a list; none, '' and [] mean no key. #}
{% macro sqe_key_list(unique_key) -%}
  {%- if unique_key is none -%}
    {{ return([]) }}
  {%- elif unique_key is string -%}
    {{ return([unique_key] if unique_key | trim else []) }}
  {%- else -%}
    {{ return(unique_key | list) }}
  {%- endif -%}
{%- endmacro %}

{% macro sqe_insert_values(dest_columns, alias) -%}
  {%- set names = dest_columns | map(attribute='name') | list -%}
  ({{ get_quoted_csv(names) }})
  values ({% for name in names %}{{ alias }}.{{ adapter.quote(name) }}{{ ", " if not loop.last }}{% endfor %})
{%- endmacro %}

{% macro sqe__get_incremental_append_sql(arg_dict) -%}
  {%- set dest_cols_csv = get_quoted_csv(arg_dict['dest_columns'] | map(attribute='name')) -%}
  insert into {{ arg_dict['target_relation'] }} ({{ dest_cols_csv }})
  select {{ dest_cols_csv }}
  from {{ arg_dict['temp_relation'] }} as DBT_INTERNAL_SOURCE
{%- endmacro %}

{# Without a strategy: MERGE on the unique key if there is one, else append. #}
{% macro sqe__get_incremental_default_sql(arg_dict) -%}
  {{ return(get_incremental_merge_sql(arg_dict)) }}
{%- endmacro %}

{# MERGE on the unique key: matched rows are updated (merge_update_columns / merge_exclude_columns),
   the others inserted. incremental_predicates narrow the match, as in dbt's default. #}
{% macro sqe__get_incremental_merge_sql(arg_dict) -%}
  {%- set keys = sqe_key_list(arg_dict['unique_key']) -%}
  {%- if not keys -%}
    {{ return(get_incremental_append_sql(arg_dict)) }}
  {%- endif -%}
  {%- set dest_columns = arg_dict['dest_columns'] -%}
  {%- set conditions = [] -%}
  {%- for key in keys -%}
    {%- do conditions.append("DBT_INTERNAL_SOURCE." ~ key ~ " = DBT_INTERNAL_DEST." ~ key) -%}
  {%- endfor -%}
  {%- for predicate in arg_dict['incremental_predicates'] or [] -%}
    {%- do conditions.append(predicate) -%}
  {%- endfor -%}
  {%- set update_columns = get_merge_update_columns(config.get('merge_update_columns'), config.get('merge_exclude_columns'), dest_columns) -%}
  merge into {{ arg_dict['target_relation'] }} as DBT_INTERNAL_DEST
  using {{ arg_dict['temp_relation'] }} as DBT_INTERNAL_SOURCE
  on ({{ conditions | join(') and (') }})
  {%- if update_columns %}
  when matched then update set
    {% for column in update_columns -%}
    {{ column }} = DBT_INTERNAL_SOURCE.{{ column }}{{ ", " if not loop.last }}
    {%- endfor %}
  {%- endif %}
  when not matched then insert {{ sqe_insert_values(dest_columns, 'DBT_INTERNAL_SOURCE') }}
{%- endmacro %}

{# delete+insert as one MERGE: rows of the target whose key the new rows have (and that match
   incremental_predicates) are deleted, and every new row is inserted, in the same commit. #}
{% macro sqe__get_incremental_delete_insert_sql(arg_dict) -%}
  {%- set keys = sqe_key_list(arg_dict['unique_key']) -%}
  {%- if not keys -%}
    {{ return(get_incremental_append_sql(arg_dict)) }}
  {%- endif -%}
  {%- set matches = [] -%}
  {%- for key in keys -%}
    {%- do matches.append("DBT_INTERNAL_KEYS." ~ key ~ " = DBT_INTERNAL_DEST." ~ key) -%}
  {%- endfor -%}
  {%- set delete_conditions = ["exists (select 1 from " ~ arg_dict['temp_relation'] ~ " as DBT_INTERNAL_KEYS where " ~ matches | join(' and ') ~ ")"] -%}
  {{ sqe_replace_rows_sql(arg_dict, delete_conditions + (arg_dict['incremental_predicates'] or [])) }}
{%- endmacro %}

{# A microbatch batch replaces the target's rows in the batch's event-time window. #}
{% macro sqe__get_incremental_microbatch_sql(arg_dict) -%}
  {%- set event_time = model.config.event_time -%}
  {%- set start = model.config.get('__dbt_internal_microbatch_event_time_start') -%}
  {%- set end = model.config.get('__dbt_internal_microbatch_event_time_end') -%}
  {%- set conditions = [] -%}
  {%- if start -%}
    {%- do conditions.append("DBT_INTERNAL_DEST." ~ event_time ~ " >= " ~ sqe_timestamp_literal(start)) -%}
  {%- endif -%}
  {%- if end -%}
    {%- do conditions.append("DBT_INTERNAL_DEST." ~ event_time ~ " < " ~ sqe_timestamp_literal(end)) -%}
  {%- endif -%}
  {{ sqe_replace_rows_sql(arg_dict, conditions + (arg_dict['incremental_predicates'] or [])) }}
{%- endmacro %}

{% macro sqe_timestamp_literal(value) -%}
  {{ return(api.Relation.timestamp_literal(value)) }}
{%- endmacro %}

{# Deletes the target rows that meet all delete_conditions (every row if there are none) and
   inserts the source's rows, in one MERGE. #}
{% macro sqe_replace_rows_sql(arg_dict, delete_conditions) -%}
  merge into {{ arg_dict['target_relation'] }} as DBT_INTERNAL_DEST
  using {{ arg_dict['temp_relation'] }} as DBT_INTERNAL_SOURCE
  on false
  when not matched by source{% if delete_conditions %} and ({{ delete_conditions | join(') and (') }}){% endif %} then delete
  when not matched then insert {{ sqe_insert_values(arg_dict['dest_columns'], 'DBT_INTERNAL_SOURCE') }}
{%- endmacro %}
