{# dbt's array macros in SQE's SQL (Trino's ARRAY[...] constructor and array type names). #}

{# SQE's parser needs at least one element in ARRAY[...], so an empty array is a typed one-element
   array sliced to nothing. #}
{% macro sqe__array_construct(inputs, data_type) -%}
  {%- if inputs -%}
    array[{{ inputs | join(', ') }}]
  {%- else -%}
    slice(array[cast(null as {{ data_type }})], 1, 0)
  {%- endif -%}
{%- endmacro %}

{% macro sqe__array_concat(array_1, array_2) -%}
  array_concat({{ array_1 }}, {{ array_2 }})
{%- endmacro %}

{% macro sqe__array_append(array, new_element) -%}
  array_append({{ array }}, {{ new_element }})
{%- endmacro %}
