CREATE TABLE `cluster_nodes` (
	`cluster_id` text NOT NULL,
	`server_id` text NOT NULL,
	`name` text NOT NULL,
	`address` text NOT NULL,
	`role` text NOT NULL,
	`nodegroup` text NOT NULL,
	`host_key_id` text NOT NULL,
	`join_state` text NOT NULL,
	`done_steps` text NOT NULL,
	`pki_generation` integer DEFAULT 1 NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`cluster_id`, `server_id`),
	FOREIGN KEY (`cluster_id`) REFERENCES `clusters`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "cluster_nodes_role" CHECK(role IN ('master', 'worker')),
	CONSTRAINT "cluster_nodes_join_state" CHECK(join_state IN ('pending', 'installing', 'joined', 'removing'))
);
--> statement-breakpoint
CREATE TABLE `cluster_pki` (
	`cluster_id` text NOT NULL,
	`generation` integer NOT NULL,
	`certs` text NOT NULL,
	`keys_sealed` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`cluster_id`, `generation`),
	FOREIGN KEY (`cluster_id`) REFERENCES `clusters`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `clusters` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`vnf_instance_id` text,
	`vim_id` text,
	`endpoint` text,
	`api_address` text,
	`settings` text NOT NULL,
	`secrets_sealed` text NOT NULL,
	`pki_generation` integer DEFAULT 1 NOT NULL,
	`registered_vim_id` text,
	`health_status` text,
	`health_status_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text,
	FOREIGN KEY (`vim_id`) REFERENCES `vims`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`registered_vim_id`) REFERENCES `vims`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "clusters_kind" CHECK(kind IN ('vnf', 'magnum')),
	CONSTRAINT "clusters_health_status" CHECK(health_status IS NULL OR health_status IN ('HEALTHY', 'UNHEALTHY', 'UNKNOWN'))
);
--> statement-breakpoint
CREATE INDEX `clusters_project` ON `clusters` (`project_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `clusters_vnf_instance` ON `clusters` (`vnf_instance_id`);