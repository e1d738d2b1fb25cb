CREATE TABLE `review_moderation` (
	`product_id` text NOT NULL,
	`user_id` text NOT NULL,
	`reason` text NOT NULL,
	`hidden_by` text,
	`hidden_at` integer NOT NULL,
	PRIMARY KEY(`product_id`, `user_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`hidden_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
-- Written by hand: the reviews staff had hidden keep their decision, now held per member and product,
-- before the columns that held it go with the table's rebuild below.
INSERT INTO `review_moderation` (`product_id`, `user_id`, `reason`, `hidden_by`, `hidden_at`)
SELECT `product_id`, `user_id`, coalesce(`hidden_reason`, 'Hidden by staff'), `hidden_by`, `hidden_at` FROM `product_reviews` WHERE `hidden_at` IS NOT NULL;
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_product_reviews` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`product_id` text NOT NULL,
	`product_handle` text NOT NULL,
	`product_title` text NOT NULL,
	`user_id` text NOT NULL,
	`rating` integer NOT NULL,
	`body` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "product_reviews_rating" CHECK("__new_product_reviews"."rating" between 1 and 5)
);
--> statement-breakpoint
INSERT INTO `__new_product_reviews`("id", "product_id", "product_handle", "product_title", "user_id", "rating", "body", "created_at", "updated_at") SELECT "id", "product_id", "product_handle", "product_title", "user_id", "rating", "body", "created_at", "updated_at" FROM `product_reviews`;--> statement-breakpoint
DROP TABLE `product_reviews`;--> statement-breakpoint
ALTER TABLE `__new_product_reviews` RENAME TO `product_reviews`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `product_reviews_member` ON `product_reviews` (`product_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `product_reviews_product` ON `product_reviews` (`product_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `product_reviews_created` ON `product_reviews` (`created_at`);