-- One download system (decision 082): releases belong to a product, a version is unique per product
-- and channel, and the old downloads list (`downloadable_files`) becomes releases, its objects kept
-- where they are. The table is rebuilt by hand, as drizzle-kit would, because a NOT NULL column is
-- added to rows that already exist: each gets its product in the same statement.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_releases` (
	`id` text PRIMARY KEY NOT NULL,
	`product` text NOT NULL,
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
	CONSTRAINT "releases_channel" CHECK("__new_releases"."channel" in ('stable', 'beta')),
	CONSTRAINT "releases_state_names" CHECK("__new_releases"."state" in ('uploading', 'ready', 'published', 'yanked'))
);
--> statement-breakpoint
-- Releases and files made before products were named belong to the product most licences name
-- (then the one most subscriptions name; a shop that never sold anything gets the demo product,
-- which staff may re-upload under another). Chosen once, kept in a scratch table until the end.
CREATE TABLE `__release_product` AS SELECT coalesce(
	(SELECT "product" FROM `licences` GROUP BY "product" ORDER BY count(*) DESC, "product" LIMIT 1),
	(SELECT "product_title" FROM `user_subscriptions` GROUP BY "product_title" ORDER BY count(*) DESC, "product_title" LIMIT 1),
	'Vertex Rust'
) AS "product";--> statement-breakpoint
INSERT INTO `__new_releases` ("id", "product", "version", "channel", "notes", "entitlement", "file_name", "object_key", "content_type", "upload_id", "parts", "size", "sha256", "state", "created_by", "created_at", "published_at", "yanked_at")
SELECT "id", (SELECT "product" FROM `__release_product`),
	"version", "channel", "notes", "entitlement", "file_name", "object_key", "content_type", "upload_id", "parts", "size", "sha256", "state", "created_by", "created_at", "published_at", "yanked_at"
FROM `releases`;--> statement-breakpoint
-- Every file moves to stable, inactive ones yanked (kept, not offered). An active one is published
-- when the shop has sold at most one product, so the file is that product's; in a shop of several
-- products the old list never said whose a file was, and publishing it under a guess could offer
-- one product's program to another's auto-update: it waits as `ready` for staff to publish it. Its
-- object stays where it is (the release's object key is the file's path); its SHA-256 is computed
-- from the object the first time it is served or offered, and its size (which the old list could
-- leave empty) with it. A version must be semantic and unique per product and channel: a plain
-- MAJOR.MINOR.PATCH is kept for the first file that has it (an active one before an inactive one,
-- newer before older) unless a release already has it; another file with it keeps it with build
-- metadata naming the old row (`2.0.0+file.7`), which ranks the same; anything else becomes
-- `0.0.0+file.<row>`, below every real version, and its old version is kept in the notes.
INSERT INTO `__new_releases` ("id", "product", "version", "channel", "notes", "entitlement", "file_name", "object_key", "content_type", "upload_id", "parts", "size", "sha256", "state", "created_by", "created_at", "published_at", "yanked_at")
WITH `split` AS (
	SELECT f.*, f.rowid AS "row", substr(f."version", 1, instr(f."version", '.') - 1) AS "major", substr(f."version", instr(f."version", '.') + 1) AS "rest"
	FROM `downloadable_files` f
), `files` AS (
	-- Digits and exactly two dots, no empty part, no leading zero, at most nine digits a part.
	SELECT *, ("version" NOT GLOB '*[^0-9.]*'
			AND length("version") - length(replace("version", '.', '')) = 2
			AND "version" NOT GLOB '*..*' AND "version" NOT GLOB '.*' AND "version" NOT GLOB '*.'
			AND "version" NOT GLOB '0[0-9]*' AND "version" NOT GLOB '*.0[0-9]*'
			AND length("major") <= 9 AND instr("rest", '.') <= 10 AND length("rest") - instr("rest", '.') <= 9) AS "plain"
	FROM `split`
), `ranked` AS (
	SELECT *, row_number() OVER (PARTITION BY "plain", "version" ORDER BY "is_active" DESC, "created_at" DESC, "row") AS "rank"
	FROM `files`
), `moved` AS (
	SELECT *,
		CASE
			WHEN "plain" AND "rank" = 1 AND NOT EXISTS (SELECT 1 FROM `__new_releases` r WHERE r."channel" = 'stable' AND r."version" = `ranked`."version") THEN "version"
			WHEN "plain" THEN "version" || '+file.' || "row"
			ELSE '0.0.0+file.' || "row"
		END AS "new_version"
	FROM `ranked`
)
SELECT "id",
	(SELECT "product" FROM `__release_product`),
	"new_version", 'stable',
	CASE WHEN "plain" THEN coalesce("description", '') ELSE trim(coalesce("description", '') || char(10) || char(10) || 'Listed before as version ' || "version" || '.') END,
	NULL, "file_name", "file_path", "content_type", NULL, '{}', coalesce("file_size", 0), NULL,
	CASE WHEN NOT "is_active" THEN 'yanked' WHEN (SELECT count(DISTINCT "product") FROM `licences`) <= 1 THEN 'published' ELSE 'ready' END,
	NULL, "created_at",
	CASE WHEN "is_active" AND (SELECT count(DISTINCT "product") FROM `licences`) <= 1 THEN "created_at" END,
	CASE WHEN "is_active" THEN NULL ELSE "created_at" END
FROM `moved`;--> statement-breakpoint
DROP TABLE `releases`;--> statement-breakpoint
ALTER TABLE `__new_releases` RENAME TO `releases`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `releases_object_key_unique` ON `releases` (`object_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `releases_product_channel_version` ON `releases` (`product`,`channel`,`version`);--> statement-breakpoint
CREATE INDEX `releases_state` ON `releases` (`state`,`product`,`channel`);--> statement-breakpoint
DROP TABLE `downloadable_files`;--> statement-breakpoint
DROP TABLE `__release_product`;
