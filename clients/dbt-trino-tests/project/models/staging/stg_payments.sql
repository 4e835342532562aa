select payment_id, account_id, amount, status, paid_at, cast(paid_at as date) as paid_on
from {{ ref('payments') }}
