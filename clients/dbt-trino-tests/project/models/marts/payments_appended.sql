{{ config(materialized='incremental', incremental_strategy='append') }}
select payment_id, account_id, amount, paid_at
from {{ ref('stg_payments') }}
{% if is_incremental() %}
where paid_at > (select max(paid_at) from {{ this }})
{% endif %}
