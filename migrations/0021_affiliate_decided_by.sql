-- Who took an affiliate's latest staff decision. ON DELETE SET NULL written by hand: drizzle-kit
-- leaves it out of an added column, and a staff account's deletion must not be refused for it.
ALTER TABLE `affiliates` ADD `decided_by` text REFERENCES users(id) ON DELETE set null;
