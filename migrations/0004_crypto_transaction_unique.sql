-- One payment pays for one order. Orders that were not fulfilled yet and repeat an earlier open or
-- complete order's transaction ID go back to "pending" without it, so their owners submit their
-- own payment again; they count as opened now, so the unpaid-order expiry gives them a full day.
-- (Two complete orders sharing a payment need a person to look at them, so the index below then
-- refuses to build.)
UPDATE `crypto_orders` SET `status` = 'pending', `transaction_id` = NULL,
  `created_at` = CAST(strftime('%s', 'now') AS INTEGER) * 1000, `updated_at` = CAST(strftime('%s', 'now') AS INTEGER) * 1000
WHERE `status` IN ('pending', 'submitted') AND `transaction_id` IS NOT NULL AND EXISTS (
  SELECT 1 FROM `crypto_orders` AS `earlier`
  WHERE `earlier`.`transaction_id` = `crypto_orders`.`transaction_id` AND `earlier`.`status` <> 'cancelled'
    AND (`earlier`.`status` = 'complete' OR `earlier`.`created_at` < `crypto_orders`.`created_at`
      OR (`earlier`.`created_at` = `crypto_orders`.`created_at` AND `earlier`.`id` < `crypto_orders`.`id`))
);--> statement-breakpoint
CREATE UNIQUE INDEX `crypto_orders_transaction` ON `crypto_orders` (`transaction_id`) WHERE "crypto_orders"."transaction_id" is not null and "crypto_orders"."status" <> 'cancelled';
