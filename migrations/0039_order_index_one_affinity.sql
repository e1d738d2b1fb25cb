DROP VIEW `order_index`;--> statement-breakpoint
CREATE VIEW `order_index` AS 
  select 'shopify:' || o.id as key, 'shopify' as source, o.id as reference, cast(coalesce(o.name, o.id) as text) as number,
    o.email as email, lower(o.email) as email_key, cast(null as text) as user_id,
    cast(case when o.cancelled_at is not null then 'cancelled' when o.refunded_at is not null then 'refunded'
      when o.paid_at is not null then 'paid' else 'pending' end as text) as state,
    cast(round(coalesce(cast(o.total_price as real), 0) * 100) as integer) as total_cents, o.currency as currency,
    cast('card' as text) as method, o.received_at as created_at
  from shopify_orders o
  union all
  select 'crypto:' || c.order_number, 'crypto', c.order_number, c.order_number, c.customer_email, lower(c.customer_email), c.user_id,
    c.status, c.amount_cents, c.currency, c.crypto_type, c.created_at
  from crypto_orders c
  union all
  select 'reseller:' || l.id, 'reseller', cast(l.id as text), cast('R-' || l.id as text), u.email, lower(u.email), l.user_id,
    cast('complete' as text), cast(-l.amount_cents as integer), cast('USD' as text), cast('balance' as text), l.created_at
  from reseller_ledger l join users u on u.id = l.user_id
  where l.kind = 'purchase'
  union all
  select 'admin:' || m.id, 'admin', cast(m.id as text), cast('M-' || m.id as text), m.email, lower(m.email), m.user_id,
    cast('complete' as text), cast(0 as integer), cast('USD' as text), cast('none' as text), m.created_at
  from manual_orders m
;