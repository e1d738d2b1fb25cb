CREATE TABLE `banned_hwids` (
	`hwid` text PRIMARY KEY NOT NULL,
	`reason` text NOT NULL,
	`banned_by` text,
	`banned_at` integer NOT NULL,
	FOREIGN KEY (`banned_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE TABLE `licence_resets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`licence_id` integer NOT NULL,
	`by` text NOT NULL,
	`actor_user_id` text,
	`previous_hwid` text,
	`reset_at` integer NOT NULL,
	FOREIGN KEY (`licence_id`) REFERENCES `licences`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`actor_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "licence_resets_by" CHECK("licence_resets"."by" in ('owner', 'admin'))
);
--> statement-breakpoint
CREATE INDEX `licence_resets_licence` ON `licence_resets` (`licence_id`,`reset_at`);--> statement-breakpoint
CREATE TABLE `licences` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`key` text NOT NULL,
	`product` text NOT NULL,
	`plan` text NOT NULL,
	`owner_email` text NOT NULL,
	`product_code_id` integer,
	`reseller_key_id` text,
	`order_id` text,
	`created_at` integer NOT NULL,
	`activated_at` integer,
	`expires_at` integer,
	`hwid` text,
	`revoked_at` integer,
	`banned_at` integer,
	`ban_reason` text,
	`last_check_at` integer,
	`last_check_place` text,
	`last_owner_reset_at` integer,
	FOREIGN KEY (`product_code_id`) REFERENCES `product_codes`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`reseller_key_id`) REFERENCES `reseller_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "licences_plan" CHECK("licences"."plan" in ('daily', 'weekly', 'monthly', 'lifetime'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `licences_key` ON `licences` (`key`);--> statement-breakpoint
CREATE UNIQUE INDEX `licences_product_code` ON `licences` (`product_code_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `licences_reseller_key` ON `licences` (`reseller_key_id`);--> statement-breakpoint
CREATE INDEX `licences_owner` ON `licences` (lower("owner_email"));--> statement-breakpoint
CREATE INDEX `licences_hwid` ON `licences` (`hwid`);--> statement-breakpoint
-- A code is now unique across variants (it is a licence key). Copies in stock that repeat a code
-- sold or stocked earlier under another variant are dropped first; earlier versions of the demo
-- data stocked such copies. Two sold copies cannot be resolved here: the index below then stops
-- the migration (decision 030 shows how to find them).
DELETE FROM `product_codes` WHERE `is_used` = 0 AND EXISTS (
  SELECT 1 FROM `product_codes` AS `other`
  WHERE `other`.`code` = `product_codes`.`code` AND `other`.`id` <> `product_codes`.`id` AND (`other`.`is_used` = 1 OR `other`.`id` < `product_codes`.`id`)
);--> statement-breakpoint
DROP INDEX `product_codes_variant_code`;--> statement-breakpoint
CREATE UNIQUE INDEX `product_codes_code` ON `product_codes` (`code`);--> statement-breakpoint
-- Keys sold before licences existed become licences on the terms they were sold on: their clock
-- started at the sale (their subscriptions' expiry, where they have one); the first validation
-- binds the PC. The plan is read from the variant title as closely as SQL can follow the shop's
-- patterns (24 h / hour / 1 day / daily, then week or 7, then month or 30, else lifetime).
INSERT INTO `licences` (`key`, `product`, `plan`, `owner_email`, `product_code_id`, `order_id`, `created_at`, `activated_at`, `expires_at`, `revoked_at`)
SELECT `code`, `product`, `plan`, `email`, `id`, `order_id`, `sold_at`, `sold_at`,
  -- The expiry its subscription already shows, where there is one.
  coalesce(
    (SELECT `expiry_date` FROM `user_subscriptions` s WHERE s.`product_code_id` = `id`),
    `sold_at` + CASE `plan` WHEN 'daily' THEN 86400000 WHEN 'weekly' THEN 604800000 WHEN 'monthly' THEN 2592000000 END
  ),
  `revoked_at`
FROM (
  SELECT `id`, `code`, `order_id`, `revoked_at`, coalesce(`customer_email`, '') AS `email`, coalesce(`used_at`, `created_at`) AS `sold_at`,
    CASE WHEN instr(`variant_title`, ' - ') > 0 THEN substr(`variant_title`, 1, instr(`variant_title`, ' - ') - 1) ELSE `variant_title` END AS `product`,
    CASE
      WHEN `variant` LIKE '%24h%' OR `variant` LIKE '%24 h%' OR `variant` LIKE '%hour%' OR `variant` = '1 day' OR `variant` LIKE '1 day%' OR `variant` LIKE '% 1 day%' OR `variant` LIKE '%daily%' THEN 'daily'
      WHEN `variant` LIKE '%week%' OR `variant` LIKE '%7%' THEN 'weekly'
      WHEN `variant` LIKE '%month%' OR `variant` LIKE '%30%' THEN 'monthly'
      ELSE 'lifetime'
    END AS `plan`
  FROM (
    SELECT *, CASE WHEN instr(`variant_title`, ' - ') > 0 THEN substr(`variant_title`, instr(`variant_title`, ' - ') + 3) ELSE `variant_title` END AS `variant`
    FROM `product_codes` WHERE `is_used` = 1
  )
);
--> statement-breakpoint
-- Reseller keys made so far: not yet activated, so their clock starts at first use.
INSERT INTO `licences` (`key`, `product`, `plan`, `owner_email`, `reseller_key_id`, `created_at`)
SELECT k.`key_code`, coalesce((SELECT `product` FROM `licences` ORDER BY `id` LIMIT 1), 'Licence'), k.`key_type`, u.`email`, k.`id`, k.`purchase_date`
FROM `reseller_keys` k JOIN `users` u ON u.`id` = k.`user_id`
WHERE NOT EXISTS (SELECT 1 FROM `licences` l WHERE l.`key` = k.`key_code`);
