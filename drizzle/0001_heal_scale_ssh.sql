CREATE TABLE `ssh_host_keys` (
	`vnfc_id` text PRIMARY KEY NOT NULL,
	`fingerprint` text NOT NULL,
	`learned_at` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `vnf_instances` ADD `instantiate_params_sealed` text;