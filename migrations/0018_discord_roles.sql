CREATE TABLE `discord_role_rules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`grant` text NOT NULL,
	`role_id` text NOT NULL,
	`role_name` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `discord_role_rules_grant_role` ON `discord_role_rules` (`grant`,`role_id`);--> statement-breakpoint
CREATE TABLE `discord_role_sync` (
	`user_id` text PRIMARY KEY NOT NULL,
	`discord_id` text NOT NULL,
	`desired_roles` text DEFAULT '[]' NOT NULL,
	`actual_roles` text,
	`state` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`last_error` text,
	`last_sync_at` integer,
	`checked_at` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `discord_role_sync_checked` ON `discord_role_sync` (`checked_at`);--> statement-breakpoint
CREATE INDEX `discord_role_sync_next_attempt` ON `discord_role_sync` (`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `discord_settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`guild_id` text NOT NULL,
	`updated_at` integer NOT NULL,
	`health_checked_at` integer,
	`health_problems` text
);
--> statement-breakpoint
CREATE TABLE `simulated_discord_faults` (
	`id` integer PRIMARY KEY NOT NULL,
	`rate_limited_requests` integer DEFAULT 0 NOT NULL,
	`retry_after_seconds` integer DEFAULT 5 NOT NULL,
	`global_limit` integer DEFAULT 0 NOT NULL,
	`requests` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `simulated_discord_members` (
	`user_id` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`roles` text DEFAULT '[]' NOT NULL,
	`joined_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `simulated_discord_roles` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`position` integer NOT NULL,
	`permissions` text DEFAULT '0' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `licences_order` ON `licences` (`order_id`);