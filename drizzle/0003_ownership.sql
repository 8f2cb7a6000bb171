ALTER TABLE `vims` ADD `project_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `vims` ADD `shared` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `vims` ADD `description` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `vims` ADD `status` text DEFAULT 'REACHABLE' NOT NULL;--> statement-breakpoint
ALTER TABLE `vims` ADD `updated_at` text;--> statement-breakpoint
CREATE INDEX `vims_project` ON `vims` (`project_id`);--> statement-breakpoint
ALTER TABLE `vnf_instances` ADD `project_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `vnf_instances_project` ON `vnf_instances` (`project_id`);--> statement-breakpoint
ALTER TABLE `vnf_lcm_op_occs` ADD `project_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `op_occs_project` ON `vnf_lcm_op_occs` (`project_id`);--> statement-breakpoint
ALTER TABLE `vnf_packages` ADD `project_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `vnf_packages_project` ON `vnf_packages` (`project_id`);