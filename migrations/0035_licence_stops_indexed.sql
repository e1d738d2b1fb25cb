CREATE INDEX `licences_revoked` ON `licences` (`revoked_at`);--> statement-breakpoint
CREATE INDEX `licences_suspended` ON `licences` (`suspended_at`);--> statement-breakpoint
CREATE INDEX `licences_banned` ON `licences` (`banned_at`);--> statement-breakpoint
CREATE INDEX `licences_paused` ON `licences` (`paused_at`);