DROP INDEX `oauth_accounts_user`;--> statement-breakpoint
-- Data correction, before the unique index can be made: an account may hold two Discord logins,
-- from link round trips started in two browsers that both finished. The one kept is the one in
-- use: the first linked (lowest rowid), which is the link the member's Security page shows, can
-- unlink, and the role sync follows. The others were a way in the member never saw. Each one
-- removed is released when the member's roles are synced (decision 072), so the roles the shop
-- gave it are taken back.
INSERT OR IGNORE INTO `discord_role_releases` (`user_id`, `discord_id`, `created_at`)
  SELECT o.`user_id`, o.`provider_user_id`, CAST(strftime('%s', 'now') AS INTEGER) * 1000 FROM `oauth_accounts` o
  WHERE o.`provider` = 'discord'
    AND EXISTS (SELECT 1 FROM `oauth_accounts` k WHERE k.`user_id` = o.`user_id` AND k.`provider` = o.`provider` AND k.rowid < o.rowid)
    AND EXISTS (SELECT 1 FROM `discord_role_sync` s WHERE s.`user_id` = o.`user_id`);--> statement-breakpoint
DELETE FROM `oauth_accounts`
  WHERE EXISTS (SELECT 1 FROM `oauth_accounts` k WHERE k.`user_id` = `oauth_accounts`.`user_id` AND k.`provider` = `oauth_accounts`.`provider` AND k.rowid < `oauth_accounts`.rowid);--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_accounts_user_provider` ON `oauth_accounts` (`user_id`,`provider`);
