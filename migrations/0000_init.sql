CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`actor_user_id` text,
	`action` text NOT NULL,
	`subject` text,
	`detail` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`actor_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `audit_log_created` ON `audit_log` (`created_at`);--> statement-breakpoint
CREATE TABLE `auth_throttle` (
	`key` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`last_failure_at` integer NOT NULL,
	`blocked_until` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `backorders` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_id` text NOT NULL,
	`line_item_id` text NOT NULL,
	`unit_index` integer NOT NULL,
	`variant_id` text NOT NULL,
	`variant_title` text NOT NULL,
	`customer_email` text NOT NULL,
	`created_at` integer NOT NULL,
	`filled_at` integer,
	`product_code_id` integer,
	`cancelled_at` integer,
	FOREIGN KEY (`product_code_id`) REFERENCES `product_codes`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `backorders_unit` ON `backorders` (`order_id`,`line_item_id`,`unit_index`);--> statement-breakpoint
CREATE INDEX `backorders_open` ON `backorders` (`variant_id`,`filled_at`,`id`);--> statement-breakpoint
CREATE TABLE `crypto_orders` (
	`id` text PRIMARY KEY NOT NULL,
	`order_number` text NOT NULL,
	`user_id` text NOT NULL,
	`status` text NOT NULL,
	`product_title` text NOT NULL,
	`variant_title` text NOT NULL,
	`variant_id` text NOT NULL,
	`customer_email` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`crypto_type` text NOT NULL,
	`wallet_address` text NOT NULL,
	`transaction_id` text,
	`product_code` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "crypto_orders_status_values" CHECK("crypto_orders"."status" in ('pending', 'submitted', 'complete', 'cancelled')),
	CONSTRAINT "crypto_orders_coin" CHECK("crypto_orders"."crypto_type" in ('BTC', 'LTC'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `crypto_orders_order_number_unique` ON `crypto_orders` (`order_number`);--> statement-breakpoint
CREATE INDEX `crypto_orders_status` ON `crypto_orders` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `crypto_orders_user` ON `crypto_orders` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `downloadable_files` (
	`id` text PRIMARY KEY NOT NULL,
	`file_name` text NOT NULL,
	`file_path` text NOT NULL,
	`file_size` integer,
	`content_type` text DEFAULT 'application/octet-stream' NOT NULL,
	`version` text NOT NULL,
	`description` text,
	`requires_subscription` integer DEFAULT true NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `downloadable_files_file_path_unique` ON `downloadable_files` (`file_path`);--> statement-breakpoint
CREATE INDEX `downloadable_files_active` ON `downloadable_files` (`is_active`,`created_at`);--> statement-breakpoint
CREATE TABLE `email_verification_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `email_verification_user` ON `email_verification_tokens` (`user_id`);--> statement-breakpoint
CREATE TABLE `mail_outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`to_address` text NOT NULL,
	`subject` text NOT NULL,
	`text_body` text NOT NULL,
	`html_body` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`dedupe_key` text,
	`created_at` integer NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`sent_at` integer,
	CONSTRAINT "mail_outbox_status" CHECK("mail_outbox"."status" in ('pending', 'sent', 'failed'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mail_outbox_dedupe_key_unique` ON `mail_outbox` (`dedupe_key`);--> statement-breakpoint
CREATE INDEX `mail_outbox_due` ON `mail_outbox` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `mail_outbox_created` ON `mail_outbox` (`created_at`);--> statement-breakpoint
CREATE TABLE `oauth_accounts` (
	`provider` text NOT NULL,
	`provider_user_id` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`provider`, `provider_user_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `oauth_accounts_user` ON `oauth_accounts` (`user_id`);--> statement-breakpoint
CREATE TABLE `product_codes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`variant_id` text NOT NULL,
	`variant_title` text NOT NULL,
	`code` text NOT NULL,
	`is_used` integer DEFAULT false NOT NULL,
	`used_at` integer,
	`customer_email` text,
	`order_id` text,
	`revoked_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `product_codes_variant_code` ON `product_codes` (`variant_id`,`code`);--> statement-breakpoint
CREATE INDEX `product_codes_available` ON `product_codes` (`variant_id`,`is_used`,`id`);--> statement-breakpoint
CREATE INDEX `product_codes_sold` ON `product_codes` (`is_used`,`used_at`);--> statement-breakpoint
CREATE INDEX `product_codes_order` ON `product_codes` (`order_id`);--> statement-breakpoint
CREATE TABLE `profiles` (
	`id` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`avatar_url` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `profiles_username_unique` ON `profiles` (lower("username"));--> statement-breakpoint
CREATE TABLE `recovery_codes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`code_hash` text NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `recovery_codes_user_code` ON `recovery_codes` (`user_id`,`code_hash`);--> statement-breakpoint
CREATE TABLE `reseller_accounts` (
	`user_id` text PRIMARY KEY NOT NULL,
	`balance_cents` integer DEFAULT 0 NOT NULL,
	`discount_rate` integer DEFAULT 50 NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "reseller_balance_non_negative" CHECK("reseller_accounts"."balance_cents" >= 0),
	CONSTRAINT "reseller_discount_range" CHECK("reseller_accounts"."discount_rate" between 0 and 100)
);
--> statement-breakpoint
CREATE TABLE `reseller_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`key_code` text NOT NULL,
	`key_type` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`price_cents` integer NOT NULL,
	`purchase_date` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "reseller_keys_type" CHECK("reseller_keys"."key_type" in ('monthly', 'weekly')),
	CONSTRAINT "reseller_keys_status" CHECK("reseller_keys"."status" in ('active', 'used'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reseller_keys_key_code_unique` ON `reseller_keys` (`key_code`);--> statement-breakpoint
CREATE INDEX `reseller_keys_user` ON `reseller_keys` (`user_id`,`purchase_date`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`user_agent` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_user` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE INDEX `sessions_expires` ON `sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `status_updates` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`title` text NOT NULL,
	`description` text NOT NULL,
	`type` text DEFAULT 'update' NOT NULL,
	`author_id` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "status_updates_type" CHECK("status_updates"."type" in ('update', 'maintenance', 'incident'))
);
--> statement-breakpoint
CREATE INDEX `status_updates_created` ON `status_updates` (`created_at`);--> statement-breakpoint
CREATE TABLE `totp_factors` (
	`user_id` text PRIMARY KEY NOT NULL,
	`secret` text NOT NULL,
	`status` text NOT NULL,
	`last_used_step` integer,
	`created_at` integer NOT NULL,
	`verified_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `user_roles` (
	`user_id` text NOT NULL,
	`role` text NOT NULL,
	PRIMARY KEY(`user_id`, `role`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "user_roles_role" CHECK("user_roles"."role" in ('admin'))
);
--> statement-breakpoint
CREATE TABLE `user_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`status` text NOT NULL,
	`product_title` text NOT NULL,
	`variant_title` text NOT NULL,
	`price_currency` text NOT NULL,
	`price_amount` text NOT NULL,
	`purchase_date` integer NOT NULL,
	`expiry_date` integer,
	`product_code_id` integer,
	`order_id` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`product_code_id`) REFERENCES `product_codes`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "user_subscriptions_status" CHECK("user_subscriptions"."status" in ('active', 'expired', 'revoked'))
);
--> statement-breakpoint
CREATE INDEX `user_subscriptions_user` ON `user_subscriptions` (`user_id`,`purchase_date`);--> statement-breakpoint
CREATE UNIQUE INDEX `user_subscriptions_code` ON `user_subscriptions` (`product_code_id`);--> statement-breakpoint
CREATE INDEX `user_subscriptions_expiry` ON `user_subscriptions` (`status`,`expiry_date`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`password_hash` text,
	`email_verified_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (lower("email"));--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`topic` text NOT NULL,
	`order_id` text,
	`outcome` text NOT NULL,
	`detail` text,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_received` ON `webhook_deliveries` (`received_at`);