ALTER TABLE `oauth_accounts` ADD `provider_username` text;--> statement-breakpoint
ALTER TABLE `product_codes` ADD `mailed_at` integer;--> statement-breakpoint
ALTER TABLE `shopify_orders` ADD `source_updated_at` integer;--> statement-breakpoint
ALTER TABLE `shopify_orders` ADD `fulfilled_at` integer;--> statement-breakpoint
ALTER TABLE `shopify_orders` ADD `mail_lease` text;--> statement-breakpoint
ALTER TABLE `shopify_orders` ADD `mail_lease_until` integer;--> statement-breakpoint
-- Every key sold before this change was mailed when it was handed out, and every paid order's
-- units were handed out.
UPDATE `product_codes` SET `mailed_at` = `used_at` WHERE `is_used` = 1;--> statement-breakpoint
UPDATE `shopify_orders` SET `fulfilled_at` = `paid_at` WHERE `paid_at` IS NOT NULL;--> statement-breakpoint
-- Discord accounts that joined an existing account by its address (linked after the account was
-- opened) did so on Discord's word alone: their members link Discord again from the Security page.
DELETE FROM `oauth_accounts` WHERE `created_at` > (SELECT `created_at` FROM `users` WHERE `users`.`id` = `oauth_accounts`.`user_id`);
