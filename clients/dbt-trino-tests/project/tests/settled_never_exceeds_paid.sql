-- A singular test: no account settles more than it paid.
select b.account_id
from {{ ref('account_balances') }} b
join (select account_id, sum(amount) as paid from {{ ref('stg_payments') }} group by account_id) p
  on p.account_id = b.account_id
where b.settled > p.paid
