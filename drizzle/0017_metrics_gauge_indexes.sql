CREATE INDEX `magnum_clusters_status` ON `magnum_clusters` (`status`);--> statement-breakpoint
CREATE INDEX `notification_outbox_pending` ON `notification_outbox` (`state`,`created_at`);