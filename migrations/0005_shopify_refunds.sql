CREATE TABLE `shopify_refunds` (
	`id` text PRIMARY KEY NOT NULL,
	`order_id` text NOT NULL,
	`line_items` text NOT NULL,
	`received_at` integer NOT NULL,
	`claim_token` text,
	`applied_at` integer
);
--> statement-breakpoint
CREATE INDEX `shopify_refunds_order` ON `shopify_refunds` (`order_id`,`applied_at`);