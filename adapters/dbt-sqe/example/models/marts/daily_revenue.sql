{{ config(
    materialized='incremental',
    unique_key='order_date',
    incremental_strategy='delete+insert',
) }}

select cast(ordered_at as date) as order_date, count(*) as orders, sum(amount) as revenue
from {{ ref('fct_orders') }}
where status <> 'returned'
group by cast(ordered_at as date)
