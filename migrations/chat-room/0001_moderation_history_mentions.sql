CREATE TABLE `members` (
	`user_id` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`last_seen_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `members_name` ON `members` (lower("username"));--> statement-breakpoint
CREATE TABLE `mentions` (
	`user_id` text NOT NULL,
	`message_id` integer NOT NULL,
	PRIMARY KEY(`user_id`, `message_id`)
);
--> statement-breakpoint
CREATE TABLE `pins` (
	`message_id` integer PRIMARY KEY NOT NULL,
	`pinned_at` integer NOT NULL,
	`pinned_by` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `reads` (
	`user_id` text PRIMARY KEY NOT NULL,
	`last_read_id` integer NOT NULL
);
--> statement-breakpoint
DROP INDEX `messages_user`;--> statement-breakpoint
ALTER TABLE `messages` ADD `mentions` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `staff` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `removed_at` integer;--> statement-breakpoint
ALTER TABLE `messages` ADD `removed_by` text;--> statement-breakpoint
CREATE INDEX `messages_user_time` ON `messages` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `messages_created` ON `messages` (`created_at`);