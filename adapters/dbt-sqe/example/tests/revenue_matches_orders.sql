-- Revenue per day adds up to the amounts of the orders that were not returned.
select 1
from (select sum(revenue) as total from {{ ref('daily_revenue') }}) as r
cross join (select sum(amount) as total from {{ ref('fct_orders') }} where status <> 'returned') as o
where r.total <> o.total
