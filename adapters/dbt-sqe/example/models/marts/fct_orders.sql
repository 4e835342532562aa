{{ config(
    materialized='incremental',
    unique_key='order_id',
    incremental_strategy='merge',
    on_schema_change='append_new_columns',
    partitioned_by=['day(ordered_at)'],
    sorted_by=['order_id'],
) }}

with items as (
    select i.order_id, sum(i.quantity * p.price) as amount, sum(i.quantity) as items
    from {{ ref('stg_order_items') }} as i
    join {{ ref('stg_products') }} as p on p.product_id = i.product_id
    group by i.order_id
)

select o.order_id, o.customer_id, o.ordered_at, o.status, items.items, items.amount
from {{ ref('stg_orders') }} as o
join items on items.order_id = o.order_id
{% if is_incremental() %}
where o.ordered_at >= (select max(ordered_at) from {{ this }}) - interval '1' day
{% endif %}
