CREATE TABLE `reseller_ledger` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`reference` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "reseller_ledger_kind" CHECK("reseller_ledger"."kind" in ('top-up', 'credit', 'purchase'))
);
--> statement-breakpoint
CREATE INDEX `reseller_ledger_user` ON `reseller_ledger` (`user_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `reseller_ledger_top_up` ON `reseller_ledger` (`reference`) WHERE "reseller_ledger"."kind" = 'top-up';--> statement-breakpoint
CREATE TABLE `simulated_payments` (
	`txid` text PRIMARY KEY NOT NULL,
	`coin` text NOT NULL,
	`address` text NOT NULL,
	`units` integer NOT NULL,
	`height` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `simulated_payments_address` ON `simulated_payments` (`address`);--> statement-breakpoint
CREATE TABLE `simulated_tips` (
	`coin` text PRIMARY KEY NOT NULL,
	`height` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `wallet_cursors` (
	`account` text PRIMARY KEY NOT NULL,
	`next_index` integer NOT NULL
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_crypto_orders` (
	`id` text PRIMARY KEY NOT NULL,
	`order_number` text NOT NULL,
	`user_id` text NOT NULL,
	`purpose` text DEFAULT 'key' NOT NULL,
	`status` text NOT NULL,
	`product_title` text NOT NULL,
	`variant_title` text NOT NULL,
	`variant_id` text NOT NULL,
	`customer_email` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`crypto_type` text NOT NULL,
	`wallet_address` text NOT NULL,
	`wallet_account` text,
	`address_index` integer,
	`amount_units` integer,
	`rate_cents` integer,
	`rate_is_demo` integer DEFAULT false NOT NULL,
	`expires_at` integer,
	`received_units` integer DEFAULT 0 NOT NULL,
	`confirmations` integer DEFAULT 0 NOT NULL,
	`payments` text DEFAULT '[]' NOT NULL,
	`first_seen_at` integer,
	`paid_at` integer,
	`review` text,
	`checked_at` integer,
	`transaction_id` text,
	`product_code` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "crypto_orders_status_values" CHECK("__new_crypto_orders"."status" in ('pending', 'underpaid', 'processing', 'complete', 'expired', 'paid-late', 'cancelled', 'submitted')),
	CONSTRAINT "crypto_orders_coin" CHECK("__new_crypto_orders"."crypto_type" in ('BTC', 'LTC')),
	CONSTRAINT "crypto_orders_purpose" CHECK("__new_crypto_orders"."purpose" in ('key', 'top-up'))
);
--> statement-breakpoint
INSERT INTO `__new_crypto_orders`("id", "order_number", "user_id", "status", "product_title", "variant_title", "variant_id", "customer_email", "amount_cents", "currency", "crypto_type", "wallet_address", "transaction_id", "product_code", "created_at", "updated_at") SELECT "id", "order_number", "user_id", "status", "product_title", "variant_title", "variant_id", "customer_email", "amount_cents", "currency", "crypto_type", "wallet_address", "transaction_id", "product_code", "created_at", "updated_at" FROM `crypto_orders`;--> statement-breakpoint
DROP TABLE `crypto_orders`;--> statement-breakpoint
ALTER TABLE `__new_crypto_orders` RENAME TO `crypto_orders`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `crypto_orders_order_number_unique` ON `crypto_orders` (`order_number`);--> statement-breakpoint
CREATE INDEX `crypto_orders_status` ON `crypto_orders` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `crypto_orders_user` ON `crypto_orders` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `crypto_orders_review` ON `crypto_orders` (`review`);--> statement-breakpoint
CREATE UNIQUE INDEX `crypto_orders_address` ON `crypto_orders` (`crypto_type`,`wallet_address`) WHERE "crypto_orders"."address_index" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX `crypto_orders_transaction` ON `crypto_orders` (`transaction_id`) WHERE "crypto_orders"."transaction_id" is not null and "crypto_orders"."status" <> 'cancelled';--> statement-breakpoint
-- Orders opened before on-chain checks that nobody said they paid: they pointed at the old shared
-- wallet, so they cannot be watched; they end as expired.
UPDATE `crypto_orders` SET `status` = 'expired' WHERE `status` = 'pending';
