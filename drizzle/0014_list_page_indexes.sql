DROP INDEX `lccn_subscriptions_project`;--> statement-breakpoint
CREATE INDEX `lccn_subscriptions_project` ON `lccn_subscriptions` (`project_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `vnf_instances_project`;--> statement-breakpoint
CREATE INDEX `vnf_instances_created` ON `vnf_instances` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `vnf_instances_project` ON `vnf_instances` (`project_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `op_occs_project`;--> statement-breakpoint
CREATE INDEX `op_occs_started` ON `vnf_lcm_op_occs` (`start_time`,`id`);--> statement-breakpoint
CREATE INDEX `op_occs_project` ON `vnf_lcm_op_occs` (`project_id`,`start_time`,`id`);--> statement-breakpoint
DROP INDEX `vnf_packages_project`;--> statement-breakpoint
CREATE INDEX `vnf_packages_created` ON `vnf_packages` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `vnf_packages_project` ON `vnf_packages` (`project_id`,`created_at`,`id`);