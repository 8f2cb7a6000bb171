ALTER TABLE `vims` ADD `access_of` text;--> statement-breakpoint
ALTER TABLE `vims` ADD `trust_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `vims_access` ON `vims` (`access_of`,`project_id`);