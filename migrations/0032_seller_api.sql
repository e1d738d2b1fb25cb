CREATE TABLE `api_idempotency_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`claimed_at` integer NOT NULL,
	`completed_at` integer,
	`outcome` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_idempotency_keys_key` ON `api_idempotency_keys` (`user_id`,`key`);--> statement-breakpoint
CREATE INDEX `api_idempotency_keys_claimed` ON `api_idempotency_keys` (`claimed_at`);