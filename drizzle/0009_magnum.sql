CREATE TABLE `cadf_events` (
	`id` text PRIMARY KEY NOT NULL,
	`cluster_id` text NOT NULL,
	`project_id` text NOT NULL,
	`event_type` text NOT NULL,
	`outcome` text NOT NULL,
	`notification` text NOT NULL,
	`deliveries` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `cadf_events_cluster` ON `cadf_events` (`cluster_id`);--> statement-breakpoint
CREATE INDEX `cadf_events_created` ON `cadf_events` (`created_at`);--> statement-breakpoint
CREATE TABLE `magnum_clusters` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`template_id` text NOT NULL,
	`status` text NOT NULL,
	`status_reason` text,
	`attrs` text NOT NULL,
	`stack_id` text,
	`operation` text NOT NULL,
	`operation_id` text NOT NULL,
	`op_nodegroups` text NOT NULL,
	`op_params` text NOT NULL,
	`workflow_started` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text,
	FOREIGN KEY (`template_id`) REFERENCES `magnum_cluster_templates`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "magnum_clusters_status" CHECK(status IN ('CREATE_IN_PROGRESS', 'CREATE_FAILED', 'CREATE_COMPLETE', 'UPDATE_IN_PROGRESS', 'UPDATE_FAILED', 'UPDATE_COMPLETE', 'DELETE_IN_PROGRESS', 'DELETE_FAILED', 'DELETE_COMPLETE', 'RESUME_COMPLETE', 'RESUME_FAILED', 'RESTORE_COMPLETE', 'ROLLBACK_IN_PROGRESS', 'ROLLBACK_FAILED', 'ROLLBACK_COMPLETE', 'SNAPSHOT_COMPLETE', 'CHECK_COMPLETE', 'ADOPT_COMPLETE')),
	CONSTRAINT "magnum_clusters_operation" CHECK(operation IN ('cluster-create', 'cluster-update', 'cluster-resize', 'cluster-upgrade', 'cluster-delete', 'nodegroup-create', 'nodegroup-update', 'nodegroup-delete', 'ca-rotate'))
);
--> statement-breakpoint
CREATE INDEX `magnum_clusters_project` ON `magnum_clusters` (`project_id`);--> statement-breakpoint
CREATE INDEX `magnum_clusters_template` ON `magnum_clusters` (`template_id`);--> statement-breakpoint
CREATE TABLE `magnum_nodegroups` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uuid` text NOT NULL,
	`cluster_id` text NOT NULL,
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`flavor_id` text,
	`image_id` text NOT NULL,
	`docker_volume_size` integer,
	`node_count` integer NOT NULL,
	`min_node_count` integer DEFAULT 0 NOT NULL,
	`max_node_count` integer,
	`labels` text NOT NULL,
	`node_labels` text NOT NULL,
	`node_taints` text NOT NULL,
	`status` text NOT NULL,
	`status_reason` text,
	`version` text,
	`members` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text,
	FOREIGN KEY (`cluster_id`) REFERENCES `magnum_clusters`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "magnum_nodegroups_status" CHECK(status IN ('CREATE_IN_PROGRESS', 'CREATE_FAILED', 'CREATE_COMPLETE', 'UPDATE_IN_PROGRESS', 'UPDATE_FAILED', 'UPDATE_COMPLETE', 'DELETE_IN_PROGRESS', 'DELETE_FAILED', 'DELETE_COMPLETE', 'RESUME_COMPLETE', 'RESUME_FAILED', 'RESTORE_COMPLETE', 'ROLLBACK_IN_PROGRESS', 'ROLLBACK_FAILED', 'ROLLBACK_COMPLETE', 'SNAPSHOT_COMPLETE', 'CHECK_COMPLETE', 'ADOPT_COMPLETE'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `magnum_nodegroups_uuid` ON `magnum_nodegroups` (`uuid`);--> statement-breakpoint
CREATE UNIQUE INDEX `magnum_nodegroups_name` ON `magnum_nodegroups` (`cluster_id`,`name`);--> statement-breakpoint
CREATE TABLE `magnum_quotas` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` text NOT NULL,
	`resource` text NOT NULL,
	`hard_limit` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `magnum_quotas_project_resource` ON `magnum_quotas` (`project_id`,`resource`);--> statement-breakpoint
CREATE TABLE `magnum_cluster_templates` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`public` integer DEFAULT false NOT NULL,
	`hidden` integer DEFAULT false NOT NULL,
	`attrs` text NOT NULL,
	`proxies_sealed` text,
	`created_at` text NOT NULL,
	`updated_at` text
);
--> statement-breakpoint
CREATE INDEX `magnum_templates_project` ON `magnum_cluster_templates` (`project_id`);