CREATE TABLE `shopify_order_variants` (
	`order_id` text NOT NULL,
	`variant_id` text NOT NULL,
	`paid_at` integer NOT NULL,
	PRIMARY KEY(`order_id`, `variant_id`)
);
--> statement-breakpoint
CREATE INDEX `shopify_order_variants_sold` ON `shopify_order_variants` (`variant_id`,`paid_at`);--> statement-breakpoint
DROP INDEX `shopify_orders_paid`;--> statement-breakpoint
-- The orders paid so far, as recording an order writes them from now on.
INSERT OR IGNORE INTO `shopify_order_variants` (`order_id`, `variant_id`, `paid_at`)
  SELECT o.`id`, json_extract(l.value, '$.variantId'), o.`paid_at`
  FROM `shopify_orders` o, json_each(o.`line_items`) l
  WHERE o.`paid_at` IS NOT NULL AND json_extract(l.value, '$.variantId') IS NOT NULL;
