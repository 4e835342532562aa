{{ config(materialized='incremental', incremental_strategy='merge', unique_key='payment_id') }}
select payment_id, account_id, amount, status, paid_on
from {{ ref('stg_payments') }}
