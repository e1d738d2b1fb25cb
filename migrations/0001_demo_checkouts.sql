CREATE TABLE `demo_checkouts` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text,
	`email` text,
	`lines` text NOT NULL,
	`created_at` integer NOT NULL,
	`paid_at` integer,
	`order_id` text,
	`order_number` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `demo_checkouts_order_number_unique` ON `demo_checkouts` (`order_number`);