-- Shopify names a product's only variant "Default Title"; the shop sells it as Lifetime and names
-- the plan where a variant's title comes in (the catalogue, the order webhook, the demo seed:
-- decision 085). Migration 0015 renamed what was stored before, but the demo seed went on stocking
-- "… - Default Title" codes, and every key sold from them carried the name into its e-mail, the
-- stock and sold lists, the sales page and the exports. Everything stored so far is renamed again,
-- and e-mails still waiting to be sent with it.
UPDATE `product_codes` SET `variant_title` = substr(`variant_title`, 1, length(`variant_title`) - 13) || 'Lifetime' WHERE `variant_title` LIKE '% - Default Title';--> statement-breakpoint
UPDATE `backorders` SET `variant_title` = substr(`variant_title`, 1, length(`variant_title`) - 13) || 'Lifetime' WHERE `variant_title` LIKE '% - Default Title';--> statement-breakpoint
UPDATE `manual_orders` SET `variant_title` = substr(`variant_title`, 1, length(`variant_title`) - 13) || 'Lifetime' WHERE `variant_title` LIKE '% - Default Title';--> statement-breakpoint
UPDATE `crypto_orders` SET `variant_title` = 'Lifetime' WHERE `variant_title` = 'Default Title';--> statement-breakpoint
UPDATE `user_subscriptions` SET `variant_title` = 'Lifetime' WHERE `variant_title` = 'Default Title';--> statement-breakpoint
UPDATE `shopify_orders` SET `line_items` = replace(`line_items`, '"variantTitle":"Default Title"', '"variantTitle":"Lifetime"') WHERE `line_items` LIKE '%"variantTitle":"Default Title"%';--> statement-breakpoint
UPDATE `mail_outbox` SET `text_body` = replace(`text_body`, ' - Default Title', ' - Lifetime'), `html_body` = replace(`html_body`, ' - Default Title', ' - Lifetime') WHERE `status` = 'pending' AND (`text_body` LIKE '% - Default Title%' OR `html_body` LIKE '% - Default Title%');
