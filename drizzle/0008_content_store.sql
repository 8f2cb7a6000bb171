CREATE TABLE `content_chunks` (
	`object_id` text NOT NULL,
	`seq` integer NOT NULL,
	`data` blob NOT NULL,
	`written_at` text NOT NULL,
	PRIMARY KEY(`object_id`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `content_objects` (
	`key` text PRIMARY KEY NOT NULL,
	`object_id` text NOT NULL,
	`size` integer NOT NULL,
	`chunk_size` integer NOT NULL,
	`sha256` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `content_objects_object_id` ON `content_objects` (`object_id`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_vnf_package_files` (
	`package_id` text NOT NULL,
	`path` text NOT NULL,
	`content` blob,
	`size` integer,
	`sha256` text,
	PRIMARY KEY(`package_id`, `path`),
	FOREIGN KEY (`package_id`) REFERENCES `vnf_packages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- size and sha256 are new: NULL until the API moves the row's bytes into the content store (drizzle-kit selected them from the old table, which has none).
INSERT INTO `__new_vnf_package_files`("package_id", "path", "content", "size", "sha256") SELECT "package_id", "path", "content", NULL, NULL FROM `vnf_package_files`;--> statement-breakpoint
DROP TABLE `vnf_package_files`;--> statement-breakpoint
ALTER TABLE `__new_vnf_package_files` RENAME TO `vnf_package_files`;--> statement-breakpoint
PRAGMA foreign_keys=ON;