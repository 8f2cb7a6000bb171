PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_magnum_clusters` (
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
	CONSTRAINT "magnum_clusters_status" CHECK(status IN ('CREATE_IN_PROGRESS', 'CREATE_FAILED', 'CREATE_COMPLETE', 'UPDATE_IN_PROGRESS', 'UPDATE_FAILED', 'UPDATE_COMPLETE', 'DELETE_IN_PROGRESS', 'DELETE_FAILED', 'DELETE_COMPLETE', 'RESUME_COMPLETE', 'RESUME_FAILED', 'RESTORE_COMPLETE', 'ROLLBACK_IN_PROGRESS', 'ROLLBACK_FAILED', 'ROLLBACK_COMPLETE', 'SNAPSHOT_COMPLETE', 'CHECK_COMPLETE', 'ADOPT_COMPLETE'))
);
--> statement-breakpoint
INSERT INTO `__new_magnum_clusters`("id", "project_id", "user_id", "name", "template_id", "status", "status_reason", "attrs", "stack_id", "operation", "operation_id", "op_nodegroups", "op_params", "workflow_started", "created_at", "updated_at") SELECT "id", "project_id", "user_id", "name", "template_id", "status", "status_reason", "attrs", "stack_id", "operation", "operation_id", "op_nodegroups", "op_params", "workflow_started", "created_at", "updated_at" FROM `magnum_clusters`;--> statement-breakpoint
DROP TABLE `magnum_clusters`;--> statement-breakpoint
ALTER TABLE `__new_magnum_clusters` RENAME TO `magnum_clusters`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `magnum_clusters_project` ON `magnum_clusters` (`project_id`);--> statement-breakpoint
CREATE INDEX `magnum_clusters_template` ON `magnum_clusters` (`template_id`);