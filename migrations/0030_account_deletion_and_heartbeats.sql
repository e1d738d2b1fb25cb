CREATE TABLE `worker_heartbeats` (
	`name` text PRIMARY KEY NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `users` ADD `deleted_at` integer;