CREATE TABLE `shopify_orders` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text,
	`email` text NOT NULL,
	`financial_status` text,
	`currency` text NOT NULL,
	`total_price` text,
	`line_items` text NOT NULL,
	`received_at` integer NOT NULL,
	`paid_at` integer,
	`cancelled_at` integer,
	`refunded_at` integer
);
--> statement-breakpoint
CREATE INDEX `shopify_orders_email` ON `shopify_orders` (`email`);--> statement-breakpoint
ALTER TABLE `product_codes` ADD `order_line_id` text;--> statement-breakpoint
ALTER TABLE `product_codes` ADD `unit_index` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `product_codes_order_unit` ON `product_codes` (`order_id`,`order_line_id`,`unit_index`);