CREATE TABLE `entitlements` (
	`name` text PRIMARY KEY NOT NULL,
	`label` text NOT NULL,
	`created_at` integer NOT NULL,
	CONSTRAINT "entitlements_name" CHECK("entitlements"."name" glob '[a-z][a-z0-9-]*' and length("entitlements"."name") <= 40)
);
--> statement-breakpoint
CREATE TABLE `plan_entitlements` (
	`plan` text NOT NULL,
	`entitlement` text NOT NULL,
	PRIMARY KEY(`plan`, `entitlement`),
	FOREIGN KEY (`entitlement`) REFERENCES `entitlements`(`name`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "plan_entitlements_plan" CHECK("plan_entitlements"."plan" in ('daily', 'weekly', 'monthly', 'lifetime'))
);
--> statement-breakpoint
CREATE TABLE `releases` (
	`id` text PRIMARY KEY NOT NULL,
	`version` text NOT NULL,
	`channel` text NOT NULL,
	`notes` text DEFAULT '' NOT NULL,
	`entitlement` text,
	`file_name` text NOT NULL,
	`object_key` text NOT NULL,
	`content_type` text DEFAULT 'application/octet-stream' NOT NULL,
	`upload_id` text,
	`parts` text DEFAULT '{}' NOT NULL,
	`size` integer NOT NULL,
	`sha256` text,
	`state` text DEFAULT 'uploading' NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	`published_at` integer,
	`yanked_at` integer,
	FOREIGN KEY (`entitlement`) REFERENCES `entitlements`(`name`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "releases_channel" CHECK("releases"."channel" in ('stable', 'beta')),
	CONSTRAINT "releases_state_names" CHECK("releases"."state" in ('uploading', 'ready', 'published', 'yanked'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `releases_object_key_unique` ON `releases` (`object_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `releases_channel_version` ON `releases` (`channel`,`version`);--> statement-breakpoint
CREATE INDEX `releases_state` ON `releases` (`state`,`channel`);--> statement-breakpoint
CREATE TABLE `replacement_requests` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`licence_id` integer NOT NULL,
	`user_id` text,
	`description` text NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`reason` text,
	`decided_by` text,
	`decided_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`licence_id`) REFERENCES `licences`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`decided_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "replacement_requests_states" CHECK("replacement_requests"."state" in ('pending', 'approved', 'declined'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `replacement_requests_licence` ON `replacement_requests` (`licence_id`);--> statement-breakpoint
CREATE INDEX `replacement_requests_state` ON `replacement_requests` (`state`,`created_at`);--> statement-breakpoint
ALTER TABLE `licences` ADD `entitlements` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
-- The plan cards' promises, as entitlements the plans include (weekly: Config Library; monthly:
-- Exclusive Configs, Beta Access, VIP Support; lifetime: everything). Staff change them in the back office.
INSERT INTO `entitlements` (`name`, `label`, `created_at`) VALUES ('config-library', 'Config Library', 0), ('configs', 'Exclusive Configs', 0), ('beta', 'Beta Access', 0), ('priority-support', 'VIP Support', 0);--> statement-breakpoint
INSERT INTO `plan_entitlements` (`plan`, `entitlement`) VALUES ('weekly', 'config-library'), ('monthly', 'configs'), ('monthly', 'beta'), ('monthly', 'priority-support'), ('lifetime', 'config-library'), ('lifetime', 'configs'), ('lifetime', 'beta'), ('lifetime', 'priority-support');
