ALTER TABLE `product_codes` ADD `mailed_at` integer;--> statement-breakpoint
ALTER TABLE `shopify_orders` ADD `source_updated_at` integer;--> statement-breakpoint
-- Every key sold before this change was mailed when it was handed out.
UPDATE `product_codes` SET `mailed_at` = `used_at` WHERE `is_used` = 1;
