CREATE TABLE `licence_compensations` (
	`id` text PRIMARY KEY NOT NULL,
	`scope_key` text NOT NULL,
	`product` text NOT NULL,
	`plan` text,
	`days` integer NOT NULL,
	`reason` text NOT NULL,
	`licence_count` integer,
	`created_by` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `licence_compensations_scope` ON `licence_compensations` (`scope_key`);--> statement-breakpoint
CREATE INDEX `licence_compensations_created` ON `licence_compensations` (`created_at`);--> statement-breakpoint
CREATE TABLE `licence_extensions` (
	`compensation_id` text NOT NULL,
	`licence_id` integer NOT NULL,
	PRIMARY KEY(`compensation_id`, `licence_id`),
	FOREIGN KEY (`compensation_id`) REFERENCES `licence_compensations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`licence_id`) REFERENCES `licences`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `licence_extensions_licence` ON `licence_extensions` (`licence_id`);--> statement-breakpoint
ALTER TABLE `licences` ADD `paused_at` integer;--> statement-breakpoint
ALTER TABLE `shopify_orders` ADD `cart_token` text;--> statement-breakpoint
CREATE INDEX `shopify_orders_cart` ON `shopify_orders` (`cart_token`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_status_updates` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`title` text NOT NULL,
	`description` text NOT NULL,
	`type` text DEFAULT 'update' NOT NULL,
	`product_id` text,
	`product_status` text,
	`author_id` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "status_updates_type" CHECK("__new_status_updates"."type" in ('update', 'maintenance', 'incident')),
	CONSTRAINT "status_updates_product_status" CHECK("__new_status_updates"."product_status" is null or ("__new_status_updates"."product_id" is not null and "__new_status_updates"."product_status" in ('undetected', 'updating', 'detected', 'down')))
);
--> statement-breakpoint
INSERT INTO `__new_status_updates`("id", "title", "description", "type", "author_id", "created_at") SELECT "id", "title", "description", "type", "author_id", "created_at" FROM `status_updates`;--> statement-breakpoint
DROP TABLE `status_updates`;--> statement-breakpoint
ALTER TABLE `__new_status_updates` RENAME TO `status_updates`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `status_updates_created` ON `status_updates` (`created_at`);--> statement-breakpoint
CREATE INDEX `status_updates_product` ON `status_updates` (`product_id`,`created_at`);--> statement-breakpoint
-- Shopify names a product's only variant "Default Title"; the shop sells it as Lifetime and now
-- stores the name buyers read. Names stored before are renamed once.
UPDATE `product_codes` SET `variant_title` = substr(`variant_title`, 1, length(`variant_title`) - 13) || 'Lifetime' WHERE `variant_title` LIKE '% - Default Title';--> statement-breakpoint
UPDATE `backorders` SET `variant_title` = substr(`variant_title`, 1, length(`variant_title`) - 13) || 'Lifetime' WHERE `variant_title` LIKE '% - Default Title';--> statement-breakpoint
UPDATE `manual_orders` SET `variant_title` = substr(`variant_title`, 1, length(`variant_title`) - 13) || 'Lifetime' WHERE `variant_title` LIKE '% - Default Title';--> statement-breakpoint
UPDATE `crypto_orders` SET `variant_title` = 'Lifetime' WHERE `variant_title` = 'Default Title';--> statement-breakpoint
UPDATE `user_subscriptions` SET `variant_title` = 'Lifetime' WHERE `variant_title` = 'Default Title';--> statement-breakpoint
UPDATE `shopify_orders` SET `line_items` = replace(`line_items`, '"variantTitle":"Default Title"', '"variantTitle":"Lifetime"') WHERE `line_items` LIKE '%"variantTitle":"Default Title"%';