select order_id, product_id, quantity
from {{ ref('order_items') }}
