{{ config(materialized='incremental', incremental_strategy='delete+insert', unique_key='paid_on') }}
select paid_on, count(*) as payments, sum(amount) as amount
from {{ ref('stg_payments') }}
group by paid_on
