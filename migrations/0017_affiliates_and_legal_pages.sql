CREATE TABLE `affiliate_clicks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`affiliate_id` text NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`affiliate_id`) REFERENCES `affiliates`(`user_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `affiliate_clicks_affiliate` ON `affiliate_clicks` (`affiliate_id`,`at`);--> statement-breakpoint
CREATE TABLE `affiliate_ledger` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`affiliate_id` text NOT NULL,
	`kind` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`available_at` integer NOT NULL,
	`order_key` text,
	`order_cents` integer,
	`buyer_email` text,
	`reference` text,
	`payout_address` text,
	`payout_transaction` text,
	`paid_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`affiliate_id`) REFERENCES `affiliates`(`user_id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "affiliate_ledger_kind" CHECK("affiliate_ledger"."kind" in ('commission', 'void', 'withdrawal', 'payout'))
);
--> statement-breakpoint
CREATE INDEX `affiliate_ledger_affiliate` ON `affiliate_ledger` (`affiliate_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `affiliate_ledger_payouts` ON `affiliate_ledger` (`kind`,`paid_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `affiliate_ledger_commission` ON `affiliate_ledger` (`order_key`) WHERE "affiliate_ledger"."kind" = 'commission';--> statement-breakpoint
CREATE UNIQUE INDEX `affiliate_ledger_void` ON `affiliate_ledger` (`reference`) WHERE "affiliate_ledger"."kind" = 'void';--> statement-breakpoint
CREATE UNIQUE INDEX `affiliate_ledger_request` ON `affiliate_ledger` (`reference`) WHERE "affiliate_ledger"."kind" in ('withdrawal', 'payout');--> statement-breakpoint
CREATE TABLE `affiliates` (
	`user_id` text PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`status` text NOT NULL,
	`channel` text NOT NULL,
	`audience` text NOT NULL,
	`pitch` text NOT NULL,
	`commission_rate` integer DEFAULT 20 NOT NULL,
	`discount_rate` integer DEFAULT 10 NOT NULL,
	`shopify_discount_code` text,
	`applied_at` integer NOT NULL,
	`decided_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "affiliates_status_values" CHECK("affiliates"."status" in ('pending', 'approved', 'declined', 'paused')),
	CONSTRAINT "affiliates_rates" CHECK("affiliates"."commission_rate" between 0 and 100 and "affiliates"."discount_rate" between 0 and 100)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `affiliates_code` ON `affiliates` (lower("code"));--> statement-breakpoint
CREATE INDEX `affiliates_status` ON `affiliates` (`status`,`applied_at`);--> statement-breakpoint
CREATE TABLE `legal_pages` (
	`slug` text PRIMARY KEY NOT NULL,
	`markdown` text NOT NULL,
	`updated_at` integer NOT NULL,
	`updated_by` text,
	FOREIGN KEY (`updated_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "legal_pages_slug" CHECK("legal_pages"."slug" in ('terms', 'refunds', 'privacy'))
);
--> statement-breakpoint
-- The order list's view reads reseller_ledger: it is dropped while the table is rebuilt.
DROP VIEW `order_index`;--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_reseller_ledger` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`reference` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "reseller_ledger_kind" CHECK("__new_reseller_ledger"."kind" in ('top-up', 'credit', 'purchase', 'commission'))
);
--> statement-breakpoint
INSERT INTO `__new_reseller_ledger`("id", "user_id", "kind", "amount_cents", "reference", "created_at") SELECT "id", "user_id", "kind", "amount_cents", "reference", "created_at" FROM `reseller_ledger`;--> statement-breakpoint
DROP TABLE `reseller_ledger`;--> statement-breakpoint
ALTER TABLE `__new_reseller_ledger` RENAME TO `reseller_ledger`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
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
;--> statement-breakpoint
CREATE INDEX `reseller_ledger_user` ON `reseller_ledger` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `reseller_ledger_kind` ON `reseller_ledger` (`kind`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `reseller_ledger_top_up` ON `reseller_ledger` (`reference`) WHERE "reseller_ledger"."kind" = 'top-up';--> statement-breakpoint
CREATE UNIQUE INDEX `reseller_ledger_credit` ON `reseller_ledger` (`reference`) WHERE "reseller_ledger"."kind" = 'credit';--> statement-breakpoint
CREATE UNIQUE INDEX `reseller_ledger_commission` ON `reseller_ledger` (`reference`) WHERE "reseller_ledger"."kind" = 'commission';--> statement-breakpoint
ALTER TABLE `crypto_orders` ADD `referred_by` text;--> statement-breakpoint
ALTER TABLE `demo_checkouts` ADD `attributes` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `demo_checkouts` ADD `discount_code` text;--> statement-breakpoint
ALTER TABLE `demo_checkouts` ADD `discount_percent` integer;