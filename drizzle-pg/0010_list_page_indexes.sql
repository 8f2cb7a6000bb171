DROP INDEX "lccn_subscriptions_project";--> statement-breakpoint
DROP INDEX "vnf_instances_project";--> statement-breakpoint
DROP INDEX "op_occs_project";--> statement-breakpoint
DROP INDEX "vnf_packages_project";--> statement-breakpoint
CREATE INDEX "vnf_instances_created" ON "vnf_instances" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "op_occs_started" ON "vnf_lcm_op_occs" USING btree ("start_time","id");--> statement-breakpoint
CREATE INDEX "vnf_packages_created" ON "vnf_packages" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "lccn_subscriptions_project" ON "lccn_subscriptions" USING btree ("project_id","created_at","id");--> statement-breakpoint
CREATE INDEX "vnf_instances_project" ON "vnf_instances" USING btree ("project_id","created_at","id");--> statement-breakpoint
CREATE INDEX "op_occs_project" ON "vnf_lcm_op_occs" USING btree ("project_id","start_time","id");--> statement-breakpoint
CREATE INDEX "vnf_packages_project" ON "vnf_packages" USING btree ("project_id","created_at","id");