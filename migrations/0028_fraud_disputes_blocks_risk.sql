CREATE TABLE `blocks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`value` text NOT NULL,
	`range_start` text,
	`range_end` text,
	`reason` text NOT NULL,
	`expires_at` integer,
	`created_at` integer NOT NULL,
	`created_by` text,
	`lifted_at` integer,
	`lifted_by` text,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`lifted_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "blocks_kind" CHECK("blocks"."kind" in ('email', 'domain', 'hwid', 'ip', 'country', 'discord'))
);
--> statement-breakpoint
CREATE INDEX `blocks_value` ON `blocks` (`kind`,`value`);--> statement-breakpoint
CREATE INDEX `blocks_range` ON `blocks` (`range_start`,`range_end`);--> statement-breakpoint
CREATE INDEX `blocks_created` ON `blocks` (`created_at`);--> statement-breakpoint
CREATE TABLE `disputes` (
	`id` text PRIMARY KEY NOT NULL,
	`order_id` text NOT NULL,
	`type` text NOT NULL,
	`reason` text,
	`status` text NOT NULL,
	`outcome` text NOT NULL,
	`amount` text,
	`currency` text,
	`evidence_due_by` integer,
	`initiated_at` integer,
	`received_at` integer NOT NULL,
	`settled_at` integer,
	CONSTRAINT "disputes_outcome" CHECK("disputes"."outcome" in ('open', 'won', 'lost'))
);
--> statement-breakpoint
CREATE INDEX `disputes_outcome` ON `disputes` (`outcome`,`evidence_due_by`);--> statement-breakpoint
CREATE INDEX `disputes_order` ON `disputes` (`order_id`);--> statement-breakpoint
CREATE TABLE `fraud_settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`window_hours` integer NOT NULL,
	`flag_addresses` integer NOT NULL,
	`flag_countries` integer NOT NULL,
	`suspend_addresses` integer,
	`suspend_countries` integer,
	`hold_risky_orders` integer DEFAULT false NOT NULL,
	`updated_at` integer NOT NULL,
	`updated_by` text,
	FOREIGN KEY (`updated_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "fraud_settings_one_row" CHECK("fraud_settings"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE `licence_risk_flags` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`licence_id` integer NOT NULL,
	`state` text NOT NULL,
	`addresses` integer NOT NULL,
	`countries` integer NOT NULL,
	`evidence` text NOT NULL,
	`flagged_at` integer NOT NULL,
	`auto_suspended` integer DEFAULT false NOT NULL,
	`decided_at` integer,
	`decided_by` text,
	FOREIGN KEY (`licence_id`) REFERENCES `licences`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`decided_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "licence_risk_flags_state" CHECK("licence_risk_flags"."state" in ('open', 'suspended', 'banned', 'dismissed'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `licence_risk_flags_open` ON `licence_risk_flags` (`licence_id`) WHERE "licence_risk_flags"."state" = 'open';--> statement-breakpoint
CREATE INDEX `licence_risk_flags_state` ON `licence_risk_flags` (`state`,`flagged_at`);--> statement-breakpoint
-- The order list's view reads reseller_ledger: it is dropped while the table is rebuilt, then made again as it was.
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
	CONSTRAINT "reseller_ledger_kind" CHECK("__new_reseller_ledger"."kind" in ('top-up', 'credit', 'purchase', 'commission', 'dispute-hold', 'dispute-release'))
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
CREATE UNIQUE INDEX `reseller_ledger_dispute` ON `reseller_ledger` (`kind`,`reference`) WHERE "reseller_ledger"."kind" in ('dispute-hold', 'dispute-release');--> statement-breakpoint
ALTER TABLE `licences` ADD `suspended_at` integer;--> statement-breakpoint
ALTER TABLE `licences` ADD `suspended_by` text;--> statement-breakpoint
ALTER TABLE `licences` ADD `suspend_reason` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `ip` text;--> statement-breakpoint
ALTER TABLE `shopify_orders` ADD `country` text;--> statement-breakpoint
ALTER TABLE `shopify_orders` ADD `browser_ip` text;--> statement-breakpoint
ALTER TABLE `shopify_orders` ADD `renews_licence_id` integer;--> statement-breakpoint
ALTER TABLE `shopify_orders` ADD `risk_reasons` text;--> statement-breakpoint
ALTER TABLE `shopify_orders` ADD `held_at` integer;--> statement-breakpoint
ALTER TABLE `shopify_orders` ADD `released_at` integer;--> statement-breakpoint
CREATE INDEX `shopify_orders_held` ON `shopify_orders` (`held_at`);