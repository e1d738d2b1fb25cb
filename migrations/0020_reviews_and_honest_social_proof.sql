CREATE TABLE `product_reviews` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`product_id` text NOT NULL,
	`product_handle` text NOT NULL,
	`product_title` text NOT NULL,
	`user_id` text NOT NULL,
	`rating` integer NOT NULL,
	`body` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`hidden_at` integer,
	`hidden_reason` text,
	`hidden_by` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`hidden_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "product_reviews_rating" CHECK("product_reviews"."rating" between 1 and 5)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `product_reviews_member` ON `product_reviews` (`product_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `product_reviews_product` ON `product_reviews` (`product_id`,`hidden_at`,`created_at`);--> statement-breakpoint
CREATE INDEX `product_reviews_created` ON `product_reviews` (`created_at`);--> statement-breakpoint
CREATE TABLE `product_sales` (
	`product_id` text PRIMARY KEY NOT NULL,
	`label` text NOT NULL,
	`ends_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`updated_by` text,
	FOREIGN KEY (`updated_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE TABLE `storefront_settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`recent_purchasers_threshold` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`updated_by` text,
	FOREIGN KEY (`updated_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "storefront_settings_one_row" CHECK("storefront_settings"."id" = 1),
	CONSTRAINT "storefront_settings_threshold" CHECK("storefront_settings"."recent_purchasers_threshold" >= 1)
);
--> statement-breakpoint
CREATE INDEX `crypto_orders_paid` ON `crypto_orders` (`variant_id`,`paid_at`);--> statement-breakpoint
CREATE INDEX `shopify_orders_paid` ON `shopify_orders` (`paid_at`);