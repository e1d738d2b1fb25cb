CREATE TABLE `bulk_changes` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`state` text DEFAULT 'previewed' NOT NULL,
	`actor_user_id` text,
	`scope` text NOT NULL,
	`targets` text NOT NULL,
	`count` integer NOT NULL,
	`claim` text,
	`created_at` integer NOT NULL,
	`applied_at` integer,
	`undo_until` integer,
	`undone_at` integer,
	`undone_by` text,
	`outcome` text,
	FOREIGN KEY (`actor_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`undone_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "bulk_changes_state" CHECK("bulk_changes"."state" in ('previewed', 'applied', 'undone'))
);
--> statement-breakpoint
CREATE INDEX `bulk_changes_recent` ON `bulk_changes` (`kind`,`state`,`applied_at`);