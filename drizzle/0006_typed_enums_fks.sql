PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_vnf_instances` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text DEFAULT '' NOT NULL,
	`vnf_instance_name` text,
	`vnf_instance_description` text,
	`vnfd_id` text NOT NULL,
	`vnf_pkg_id` text NOT NULL,
	`vnf_provider` text NOT NULL,
	`vnf_product_name` text NOT NULL,
	`vnf_software_version` text NOT NULL,
	`vnfd_version` text NOT NULL,
	`instantiation_state` text NOT NULL,
	`vim_connection_info` text NOT NULL,
	`instantiated_vnf_info` text,
	`metadata` text NOT NULL,
	`stack_id` text,
	`vim_id` text,
	`instantiate_params_sealed` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`vnf_pkg_id`) REFERENCES `vnf_packages`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`vim_id`) REFERENCES `vims`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "vnf_instances_instantiation_state" CHECK(instantiation_state IN ('NOT_INSTANTIATED', 'INSTANTIATED'))
);
--> statement-breakpoint
INSERT INTO `__new_vnf_instances`("id", "project_id", "vnf_instance_name", "vnf_instance_description", "vnfd_id", "vnf_pkg_id", "vnf_provider", "vnf_product_name", "vnf_software_version", "vnfd_version", "instantiation_state", "vim_connection_info", "instantiated_vnf_info", "metadata", "stack_id", "vim_id", "instantiate_params_sealed", "created_at") SELECT "id", "project_id", "vnf_instance_name", "vnf_instance_description", "vnfd_id", "vnf_pkg_id", "vnf_provider", "vnf_product_name", "vnf_software_version", "vnfd_version", "instantiation_state", "vim_connection_info", "instantiated_vnf_info", "metadata", "stack_id", "vim_id", "instantiate_params_sealed", "created_at" FROM `vnf_instances`;--> statement-breakpoint
DROP TABLE `vnf_instances`;--> statement-breakpoint
ALTER TABLE `__new_vnf_instances` RENAME TO `vnf_instances`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `vnf_instances_project` ON `vnf_instances` (`project_id`);--> statement-breakpoint
CREATE TABLE `__new_vnf_lcm_op_occs` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text DEFAULT '' NOT NULL,
	`vnf_instance_id` text NOT NULL,
	`operation` text NOT NULL,
	`operation_state` text NOT NULL,
	`state_entered_time` text NOT NULL,
	`start_time` text NOT NULL,
	`is_automatic_invocation` integer DEFAULT false NOT NULL,
	`operation_params` text NOT NULL,
	`operation_params_sealed` text NOT NULL,
	`is_cancel_pending` integer DEFAULT false NOT NULL,
	`cancel_mode` text,
	`error` text,
	`resource_changes` text,
	`changed_info` text,
	`lcm_coordinations` text,
	`rejected_lcm_coordinations` text,
	`current_step` text,
	`rolling_progress` text,
	`workflow_started` integer DEFAULT false NOT NULL,
	CONSTRAINT "op_occs_operation_state" CHECK(operation_state IN ('STARTING', 'PROCESSING', 'COMPLETED', 'FAILED_TEMP', 'FAILED', 'ROLLING_BACK', 'ROLLED_BACK')),
	CONSTRAINT "op_occs_cancel_mode" CHECK(cancel_mode IS NULL OR cancel_mode IN ('GRACEFUL', 'FORCEFUL'))
);
--> statement-breakpoint
INSERT INTO `__new_vnf_lcm_op_occs`("id", "project_id", "vnf_instance_id", "operation", "operation_state", "state_entered_time", "start_time", "is_automatic_invocation", "operation_params", "operation_params_sealed", "is_cancel_pending", "cancel_mode", "error", "resource_changes", "changed_info", "lcm_coordinations", "rejected_lcm_coordinations", "current_step", "rolling_progress", "workflow_started") SELECT "id", "project_id", "vnf_instance_id", "operation", "operation_state", "state_entered_time", "start_time", "is_automatic_invocation", "operation_params", "operation_params_sealed", "is_cancel_pending", "cancel_mode", "error", "resource_changes", "changed_info", "lcm_coordinations", "rejected_lcm_coordinations", "current_step", "rolling_progress", "workflow_started" FROM `vnf_lcm_op_occs`;--> statement-breakpoint
DROP TABLE `vnf_lcm_op_occs`;--> statement-breakpoint
ALTER TABLE `__new_vnf_lcm_op_occs` RENAME TO `vnf_lcm_op_occs`;--> statement-breakpoint
CREATE INDEX `op_occs_instance` ON `vnf_lcm_op_occs` (`vnf_instance_id`);--> statement-breakpoint
CREATE INDEX `op_occs_state` ON `vnf_lcm_op_occs` (`operation_state`);--> statement-breakpoint
CREATE INDEX `op_occs_project` ON `vnf_lcm_op_occs` (`project_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `op_occs_one_open` ON `vnf_lcm_op_occs` (`vnf_instance_id`) WHERE operation_state NOT IN ('COMPLETED', 'FAILED', 'ROLLED_BACK');--> statement-breakpoint
CREATE TABLE `__new_vnf_packages` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text DEFAULT '' NOT NULL,
	`onboarding_state` text NOT NULL,
	`operational_state` text NOT NULL,
	`usage_state` text NOT NULL,
	`user_defined_data` text NOT NULL,
	`vnfd_id` text,
	`vnf_provider` text,
	`vnf_product_name` text,
	`vnf_software_version` text,
	`vnfd_version` text,
	`checksum` text,
	`onboarding_failure_details` text,
	`vnfd` text,
	`vnfd_files` text,
	`software_images` text,
	`additional_artifacts` text,
	`created_at` text NOT NULL,
	CONSTRAINT "vnf_packages_onboarding_state" CHECK(onboarding_state IN ('CREATED', 'UPLOADING', 'PROCESSING', 'ONBOARDED', 'ERROR')),
	CONSTRAINT "vnf_packages_operational_state" CHECK(operational_state IN ('ENABLED', 'DISABLED')),
	CONSTRAINT "vnf_packages_usage_state" CHECK(usage_state IN ('IN_USE', 'NOT_IN_USE'))
);
--> statement-breakpoint
INSERT INTO `__new_vnf_packages`("id", "project_id", "onboarding_state", "operational_state", "usage_state", "user_defined_data", "vnfd_id", "vnf_provider", "vnf_product_name", "vnf_software_version", "vnfd_version", "checksum", "onboarding_failure_details", "vnfd", "vnfd_files", "software_images", "additional_artifacts", "created_at") SELECT "id", "project_id", "onboarding_state", "operational_state", "usage_state", "user_defined_data", "vnfd_id", "vnf_provider", "vnf_product_name", "vnf_software_version", "vnfd_version", "checksum", "onboarding_failure_details", "vnfd", "vnfd_files", "software_images", "additional_artifacts", "created_at" FROM `vnf_packages`;--> statement-breakpoint
DROP TABLE `vnf_packages`;--> statement-breakpoint
ALTER TABLE `__new_vnf_packages` RENAME TO `vnf_packages`;--> statement-breakpoint
CREATE INDEX `vnf_packages_vnfd_id` ON `vnf_packages` (`vnfd_id`);--> statement-breakpoint
CREATE INDEX `vnf_packages_project` ON `vnf_packages` (`project_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `vnf_packages_one_onboarded_vnfd` ON `vnf_packages` (`project_id`,`vnfd_id`) WHERE onboarding_state = 'ONBOARDED';