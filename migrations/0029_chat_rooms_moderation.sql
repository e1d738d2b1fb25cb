CREATE TABLE `chat_reports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`room` text NOT NULL,
	`message_id` integer NOT NULL,
	`author_id` text,
	`author_name` text NOT NULL,
	`content` text NOT NULL,
	`message_at` integer NOT NULL,
	`context` text NOT NULL,
	`reporter_id` text NOT NULL,
	`reason` text NOT NULL,
	`created_at` integer NOT NULL,
	`state` text DEFAULT 'open' NOT NULL,
	`decided_by` text,
	`decided_at` integer,
	`decision` text,
	FOREIGN KEY (`room`) REFERENCES `chat_rooms`(`slug`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`reporter_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`decided_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `chat_reports_once` ON `chat_reports` (`room`,`message_id`,`reporter_id`);--> statement-breakpoint
CREATE INDEX `chat_reports_queue` ON `chat_reports` (`state`,`created_at`);--> statement-breakpoint
CREATE TABLE `chat_rooms` (
	`slug` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`product` text,
	`slow_mode_seconds` integer DEFAULT 0 NOT NULL,
	`link_rule` text DEFAULT 'allowed' NOT NULL,
	`blocked_words` text DEFAULT '[]' NOT NULL,
	`retention_days` integer DEFAULT 90 NOT NULL,
	`created_at` integer NOT NULL,
	`created_by` text,
	`archived_at` integer,
	`archived_by` text,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`archived_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "chat_rooms_product_kind" CHECK(("chat_rooms"."kind" = 'product') = ("chat_rooms"."product" is not null)),
	CONSTRAINT "chat_rooms_slow_mode" CHECK("chat_rooms"."slow_mode_seconds" between 0 and 3600),
	CONSTRAINT "chat_rooms_retention" CHECK("chat_rooms"."retention_days" between 1 and 3650)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `chat_rooms_product` ON `chat_rooms` (`product`) WHERE "chat_rooms"."archived_at" is null;--> statement-breakpoint
CREATE TABLE `chat_sanctions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`until` integer,
	`reason` text NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	`lifted_at` integer,
	`lifted_by` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`lifted_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "chat_sanctions_mute_ends" CHECK("chat_sanctions"."kind" <> 'mute' or "chat_sanctions"."until" is not null)
);
--> statement-breakpoint
CREATE INDEX `chat_sanctions_member` ON `chat_sanctions` (`user_id`,`kind`,`lifted_at`);--> statement-breakpoint
CREATE INDEX `chat_sanctions_open` ON `chat_sanctions` (`lifted_at`,`created_at`);--> statement-breakpoint
-- Every shop's two rooms. "general" is the hub's one room until now: its Durable Object keeps the
-- name it always had, so its messages stay.
INSERT INTO `chat_rooms` (`slug`, `name`, `kind`, `created_at`) VALUES ('general', 'General', 'open', CAST(strftime('%s', 'now') AS INTEGER) * 1000), ('announcements', 'Announcements', 'announcements', CAST(strftime('%s', 'now') AS INTEGER) * 1000);
