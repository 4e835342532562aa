select product_id, title, category, cast(price as decimal(10, 2)) as price
from {{ ref('products') }}
