CREATE TABLE `manual_orders` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text,
	`email` text NOT NULL,
	`variant_id` text NOT NULL,
	`variant_title` text NOT NULL,
	`reason` text NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `manual_orders_email` ON `manual_orders` (lower("email"));--> statement-breakpoint
CREATE INDEX `manual_orders_created` ON `manual_orders` (`created_at`);--> statement-breakpoint
CREATE TABLE `stock_alerts` (
	`variant_id` text PRIMARY KEY NOT NULL,
	`threshold` integer NOT NULL,
	`alerted_at` integer
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_user_roles` (
	`user_id` text PRIMARY KEY NOT NULL,
	`role` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "user_roles_role" CHECK("__new_user_roles"."role" in ('admin', 'support'))
);
--> statement-breakpoint
INSERT INTO `__new_user_roles`("user_id", "role") SELECT "user_id", "role" FROM `user_roles`;--> statement-breakpoint
DROP TABLE `user_roles`;--> statement-breakpoint
ALTER TABLE `__new_user_roles` RENAME TO `user_roles`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
DROP INDEX `shopify_orders_email`;--> statement-breakpoint
CREATE INDEX `shopify_orders_received` ON `shopify_orders` (`received_at`);--> statement-breakpoint
CREATE INDEX `shopify_orders_name` ON `shopify_orders` (`name`);--> statement-breakpoint
CREATE INDEX `shopify_orders_email` ON `shopify_orders` (lower("email"));--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `order_key` text;--> statement-breakpoint
CREATE INDEX `mail_outbox_order` ON `mail_outbox` (`order_key`,`created_at`);--> statement-breakpoint
ALTER TABLE `reseller_keys` ADD `purchase_id` integer;--> statement-breakpoint
CREATE INDEX `reseller_keys_purchase` ON `reseller_keys` (`purchase_id`);--> statement-breakpoint
-- Keys bought before purchases were linked: a purchase's keys carry its time plus their index.
UPDATE `reseller_keys` SET `purchase_id` = (
	SELECT l.`id` FROM `reseller_ledger` l
	WHERE l.`user_id` = `reseller_keys`.`user_id` AND l.`kind` = 'purchase' AND `reseller_keys`.`purchase_date` - l.`created_at` BETWEEN 0 AND 999
	ORDER BY l.`created_at` DESC LIMIT 1
);--> statement-breakpoint
ALTER TABLE `users` ADD `banned_at` integer;--> statement-breakpoint
ALTER TABLE `users` ADD `ban_reason` text;--> statement-breakpoint
CREATE INDEX `users_created` ON `users` (`created_at`);--> statement-breakpoint
CREATE INDEX `audit_log_actor` ON `audit_log` (`actor_user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `audit_log_action` ON `audit_log` (`action`,`created_at`);--> statement-breakpoint
CREATE INDEX `audit_log_subject` ON `audit_log` (`subject`,`created_at`);--> statement-breakpoint
CREATE INDEX `crypto_orders_email` ON `crypto_orders` (lower("customer_email"));--> statement-breakpoint
CREATE INDEX `crypto_orders_created` ON `crypto_orders` (`created_at`);--> statement-breakpoint
CREATE INDEX `reseller_ledger_kind` ON `reseller_ledger` (`kind`,`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_order` ON `webhook_deliveries` (`order_id`,`received_at`);--> statement-breakpoint
CREATE VIEW `order_index` AS 
  select 'shopify:' || o.id as key, 'shopify' as source, o.id as reference, coalesce(o.name, o.id) as number,
    o.email as email, lower(o.email) as email_key, null as user_id,
    case when o.cancelled_at is not null then 'cancelled' when o.refunded_at is not null then 'refunded'
      when o.paid_at is not null then 'paid' else 'pending' end as state,
    cast(round(coalesce(cast(o.total_price as real), 0) * 100) as integer) as total_cents, o.currency as currency,
    'card' as method, o.received_at as created_at
  from shopify_orders o
  union all
  select 'crypto:' || c.order_number, 'crypto', c.order_number, c.order_number, c.customer_email, lower(c.customer_email), c.user_id,
    c.status, c.amount_cents, c.currency, c.crypto_type, c.created_at
  from crypto_orders c
  union all
  select 'reseller:' || l.id, 'reseller', cast(l.id as text), 'R-' || l.id, u.email, lower(u.email), l.user_id,
    'complete', -l.amount_cents, 'USD', 'balance', l.created_at
  from reseller_ledger l join users u on u.id = l.user_id
  where l.kind = 'purchase'
  union all
  select 'admin:' || m.id, 'admin', cast(m.id as text), 'M-' || m.id, m.email, lower(m.email), m.user_id,
    'complete', 0, 'USD', 'none', m.created_at
  from manual_orders m
;