CREATE TABLE `coordination_waits` (
	`id` text PRIMARY KEY NOT NULL,
	`op_occ_id` text NOT NULL,
	`args` text NOT NULL,
	`task_token` text NOT NULL,
	`location` text,
	`deadline` integer NOT NULL,
	`timeout_ms` integer NOT NULL,
	`next_poll_at` integer NOT NULL,
	FOREIGN KEY (`op_occ_id`) REFERENCES `vnf_lcm_op_occs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `coordination_waits_due` ON `coordination_waits` (`next_poll_at`);