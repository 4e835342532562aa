select a.account_id, a.owner, a.tier,
       count(p.payment_id) as payments,
       coalesce(sum(case when p.status = 'settled' then p.amount end), 0) as settled
from {{ ref('accounts') }} a
left join {{ ref('stg_payments') }} p on p.account_id = a.account_id
group by a.account_id, a.owner, a.tier
