CREATE TABLE `lccn_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`api_version` text NOT NULL,
	`callback_uri` text NOT NULL,
	`filter` text,
	`verbosity` text,
	`authentication` text,
	`authentication_sealed` text,
	`created_at` text NOT NULL,
	CONSTRAINT "lccn_subscriptions_api_version" CHECK(api_version IN ('v1', 'v2'))
);
--> statement-breakpoint
CREATE INDEX `lccn_subscriptions_project` ON `lccn_subscriptions` (`project_id`);--> statement-breakpoint
CREATE TABLE `notification_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`project_id` text NOT NULL,
	`subscription_id` text,
	`source_id` text NOT NULL,
	`ordering_key` text NOT NULL,
	`seq` integer NOT NULL,
	`sink` integer,
	`destination` text NOT NULL,
	`notification_type` text NOT NULL,
	`payload` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`last_attempt_at` text,
	`dispatched` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`finished_at` text,
	CONSTRAINT "notification_outbox_kind" CHECK(kind IN ('etsi-lcm', 'cadf')),
	CONSTRAINT "notification_outbox_state" CHECK(state IN ('PENDING', 'DELIVERED', 'FAILED'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notification_outbox_key_seq` ON `notification_outbox` (`ordering_key`,`seq`);--> statement-breakpoint
CREATE INDEX `notification_outbox_subscription` ON `notification_outbox` (`subscription_id`,`state`);--> statement-breakpoint
CREATE INDEX `notification_outbox_source` ON `notification_outbox` (`source_id`);--> statement-breakpoint
CREATE INDEX `notification_outbox_undispatched` ON `notification_outbox` (`dispatched`);--> statement-breakpoint
ALTER TABLE `vnf_lcm_op_occs` ADD `notified_state` text;--> statement-breakpoint
-- op occs from before notifications: nothing to announce for the states they are in already
UPDATE `vnf_lcm_op_occs` SET `notified_state` = `operation_state`;