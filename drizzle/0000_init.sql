CREATE TABLE `vims` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`type` text DEFAULT 'openstack' NOT NULL,
	`auth_url` text NOT NULL,
	`username` text NOT NULL,
	`password_sealed` text NOT NULL,
	`project` text NOT NULL,
	`project_domain` text DEFAULT 'Default' NOT NULL,
	`user_domain` text DEFAULT 'Default' NOT NULL,
	`region` text DEFAULT 'RegionOne' NOT NULL,
	`ca_cert` text,
	`is_default` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `vnf_instances` (
	`id` text PRIMARY KEY NOT NULL,
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
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `vnf_lcm_op_occs` (
	`id` text PRIMARY KEY NOT NULL,
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
	`workflow_started` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE INDEX `op_occs_instance` ON `vnf_lcm_op_occs` (`vnf_instance_id`);--> statement-breakpoint
CREATE INDEX `op_occs_state` ON `vnf_lcm_op_occs` (`operation_state`);--> statement-breakpoint
CREATE TABLE `vnf_package_contents` (
	`package_id` text PRIMARY KEY NOT NULL,
	`zip` blob NOT NULL,
	FOREIGN KEY (`package_id`) REFERENCES `vnf_packages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `vnf_package_files` (
	`package_id` text NOT NULL,
	`path` text NOT NULL,
	`content` blob NOT NULL,
	PRIMARY KEY(`package_id`, `path`),
	FOREIGN KEY (`package_id`) REFERENCES `vnf_packages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `vnf_packages` (
	`id` text PRIMARY KEY NOT NULL,
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
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `vnf_packages_vnfd_id` ON `vnf_packages` (`vnfd_id`);