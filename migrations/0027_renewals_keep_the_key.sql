CREATE TABLE `auto_renewals` (
	`licence_id` integer PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`licence_id`) REFERENCES `licences`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `auto_renewals_user` ON `auto_renewals` (`user_id`);--> statement-breakpoint
CREATE TABLE `licence_renewals` (
	`id` text PRIMARY KEY NOT NULL,
	`claim_key` text NOT NULL,
	`licence_id` integer NOT NULL,
	`kind` text NOT NULL,
	`method` text NOT NULL,
	`auto` integer DEFAULT false NOT NULL,
	`order_key` text,
	`order_line_id` text,
	`unit_index` integer DEFAULT 0 NOT NULL,
	`from_plan` text NOT NULL,
	`to_plan` text NOT NULL,
	`previous_expires_at` integer,
	`expires_at` integer,
	`added_ms` integer,
	`previous_entitlements` text DEFAULT '[]' NOT NULL,
	`previous_variant_title` text,
	`price_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`created_at` integer NOT NULL,
	`refunded_at` integer,
	`refund_claim` text,
	FOREIGN KEY (`licence_id`) REFERENCES `licences`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "licence_renewals_kind" CHECK("licence_renewals"."kind" in ('renewal', 'upgrade')),
	CONSTRAINT "licence_renewals_method" CHECK("licence_renewals"."method" in ('card', 'BTC', 'LTC', 'balance'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `licence_renewals_claim` ON `licence_renewals` (`claim_key`);--> statement-breakpoint
CREATE INDEX `licence_renewals_licence` ON `licence_renewals` (`licence_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `licence_renewals_order` ON `licence_renewals` (`order_key`,`order_line_id`,`unit_index`);--> statement-breakpoint
CREATE INDEX `licence_renewals_created` ON `licence_renewals` (`created_at`);--> statement-breakpoint
CREATE INDEX `licence_renewals_refund` ON `licence_renewals` (`refund_claim`);--> statement-breakpoint
CREATE TABLE `reminder_opt_outs` (
	`user_id` text PRIMARY KEY NOT NULL,
	`opted_out_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `renewal_reminders` (
	`licence_id` integer NOT NULL,
	`stage` text NOT NULL,
	`expires_at` integer NOT NULL,
	`sent_at` integer NOT NULL,
	PRIMARY KEY(`licence_id`, `stage`, `expires_at`),
	FOREIGN KEY (`licence_id`) REFERENCES `licences`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `renewal_reminders_sent` ON `renewal_reminders` (`sent_at`);--> statement-breakpoint
ALTER TABLE `crypto_orders` ADD `renews_licence_id` integer;--> statement-breakpoint
ALTER TABLE `demo_checkouts` ADD `credit_cents` integer;--> statement-breakpoint
ALTER TABLE `demo_checkouts` ADD `credit_label` text;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `headers` text;--> statement-breakpoint
CREATE INDEX `licences_expiry` ON `licences` (`expires_at`);