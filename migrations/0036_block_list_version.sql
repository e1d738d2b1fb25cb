CREATE TABLE `block_list_version` (
	`id` integer PRIMARY KEY NOT NULL,
	`version` integer NOT NULL,
	CONSTRAINT "block_list_version_one_row" CHECK("block_list_version"."id" = 1)
);
--> statement-breakpoint
-- The one row the licence check reads; every change to the blocklist counts it up from here.
INSERT INTO `block_list_version` (`id`, `version`) VALUES (1, 0);
