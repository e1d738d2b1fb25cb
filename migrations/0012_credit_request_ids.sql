-- Credits made before request ids held the crediting admin's id, repeated across credits: each
-- gets a reference of its own first, so the unique index below can be built.
UPDATE `reseller_ledger` SET `reference` = 'before-request-ids:' || `id` WHERE `kind` = 'credit';--> statement-breakpoint
CREATE UNIQUE INDEX `reseller_ledger_credit` ON `reseller_ledger` (`reference`) WHERE "reseller_ledger"."kind" = 'credit';
