CREATE TABLE "cadf_events" (
	"id" text PRIMARY KEY NOT NULL,
	"cluster_id" text NOT NULL,
	"project_id" text NOT NULL,
	"event_type" text NOT NULL,
	"outcome" text NOT NULL,
	"notification" jsonb NOT NULL,
	"deliveries" jsonb NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "magnum_clusters" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"user_id" text NOT NULL,
	"name" text NOT NULL,
	"template_id" text NOT NULL,
	"status" text NOT NULL,
	"status_reason" text,
	"attrs" jsonb NOT NULL,
	"stack_id" text,
	"operation" text NOT NULL,
	"operation_id" text NOT NULL,
	"op_nodegroups" jsonb NOT NULL,
	"op_params" jsonb NOT NULL,
	"workflow_started" boolean DEFAULT false NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text,
	CONSTRAINT "magnum_clusters_status" CHECK (status IN ('CREATE_IN_PROGRESS', 'CREATE_FAILED', 'CREATE_COMPLETE', 'UPDATE_IN_PROGRESS', 'UPDATE_FAILED', 'UPDATE_COMPLETE', 'DELETE_IN_PROGRESS', 'DELETE_FAILED', 'DELETE_COMPLETE', 'RESUME_COMPLETE', 'RESUME_FAILED', 'RESTORE_COMPLETE', 'ROLLBACK_IN_PROGRESS', 'ROLLBACK_FAILED', 'ROLLBACK_COMPLETE', 'SNAPSHOT_COMPLETE', 'CHECK_COMPLETE', 'ADOPT_COMPLETE')),
	CONSTRAINT "magnum_clusters_operation" CHECK (operation IN ('cluster-create', 'cluster-update', 'cluster-resize', 'cluster-upgrade', 'cluster-delete', 'nodegroup-create', 'nodegroup-update', 'nodegroup-delete', 'ca-rotate'))
);
--> statement-breakpoint
CREATE TABLE "magnum_nodegroups" (
	"id" serial PRIMARY KEY NOT NULL,
	"uuid" text NOT NULL,
	"cluster_id" text NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"flavor_id" text,
	"image_id" text NOT NULL,
	"docker_volume_size" integer,
	"node_count" integer NOT NULL,
	"min_node_count" integer DEFAULT 0 NOT NULL,
	"max_node_count" integer,
	"labels" jsonb NOT NULL,
	"node_labels" jsonb NOT NULL,
	"node_taints" jsonb NOT NULL,
	"status" text NOT NULL,
	"status_reason" text,
	"version" text,
	"members" jsonb NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text,
	CONSTRAINT "magnum_nodegroups_status" CHECK (status IN ('CREATE_IN_PROGRESS', 'CREATE_FAILED', 'CREATE_COMPLETE', 'UPDATE_IN_PROGRESS', 'UPDATE_FAILED', 'UPDATE_COMPLETE', 'DELETE_IN_PROGRESS', 'DELETE_FAILED', 'DELETE_COMPLETE', 'RESUME_COMPLETE', 'RESUME_FAILED', 'RESTORE_COMPLETE', 'ROLLBACK_IN_PROGRESS', 'ROLLBACK_FAILED', 'ROLLBACK_COMPLETE', 'SNAPSHOT_COMPLETE', 'CHECK_COMPLETE', 'ADOPT_COMPLETE'))
);
--> statement-breakpoint
CREATE TABLE "magnum_quotas" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"resource" text NOT NULL,
	"hard_limit" integer NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text
);
--> statement-breakpoint
CREATE TABLE "magnum_cluster_templates" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"user_id" text NOT NULL,
	"name" text NOT NULL,
	"public" boolean DEFAULT false NOT NULL,
	"hidden" boolean DEFAULT false NOT NULL,
	"attrs" jsonb NOT NULL,
	"proxies_sealed" text,
	"created_at" text NOT NULL,
	"updated_at" text
);
--> statement-breakpoint
ALTER TABLE "magnum_clusters" ADD CONSTRAINT "magnum_clusters_template_id_magnum_cluster_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."magnum_cluster_templates"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "magnum_nodegroups" ADD CONSTRAINT "magnum_nodegroups_cluster_id_magnum_clusters_id_fk" FOREIGN KEY ("cluster_id") REFERENCES "public"."magnum_clusters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "cadf_events_cluster" ON "cadf_events" USING btree ("cluster_id");--> statement-breakpoint
CREATE INDEX "cadf_events_created" ON "cadf_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "magnum_clusters_project" ON "magnum_clusters" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "magnum_clusters_template" ON "magnum_clusters" USING btree ("template_id");--> statement-breakpoint
CREATE UNIQUE INDEX "magnum_nodegroups_uuid" ON "magnum_nodegroups" USING btree ("uuid");--> statement-breakpoint
CREATE UNIQUE INDEX "magnum_nodegroups_name" ON "magnum_nodegroups" USING btree ("cluster_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "magnum_quotas_project_resource" ON "magnum_quotas" USING btree ("project_id","resource");--> statement-breakpoint
CREATE INDEX "magnum_templates_project" ON "magnum_cluster_templates" USING btree ("project_id");