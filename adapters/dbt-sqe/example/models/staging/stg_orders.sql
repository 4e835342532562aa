select order_id, customer_id, ordered_at, status
from {{ ref('orders') }}
