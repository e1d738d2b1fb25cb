CREATE TABLE `failed_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`body` text NOT NULL,
	`attempts` integer NOT NULL,
	`last_error` text NOT NULL,
	`failed_at` integer NOT NULL,
	`dead_at` integer
);
--> statement-breakpoint
CREATE INDEX `failed_jobs_dead` ON `failed_jobs` (`dead_at`);--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `payload` text;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_outcome` ON `webhook_deliveries` (`outcome`,`received_at`);