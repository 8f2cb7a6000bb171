CREATE TABLE "ssh_host_keys" (
	"vnfc_id" text PRIMARY KEY NOT NULL,
	"fingerprint" text NOT NULL,
	"learned_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "vims" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text DEFAULT '' NOT NULL,
	"shared" boolean DEFAULT false NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"type" text DEFAULT 'openstack' NOT NULL,
	"auth_url" text NOT NULL,
	"username" text NOT NULL,
	"password_sealed" text NOT NULL,
	"project" text NOT NULL,
	"project_domain" text DEFAULT 'Default' NOT NULL,
	"user_domain" text DEFAULT 'Default' NOT NULL,
	"region" text DEFAULT 'RegionOne' NOT NULL,
	"ca_cert" text,
	"is_default" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'REACHABLE' NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text
);
--> statement-breakpoint
CREATE TABLE "vnf_instances" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text DEFAULT '' NOT NULL,
	"vnf_instance_name" text,
	"vnf_instance_description" text,
	"vnfd_id" text NOT NULL,
	"vnf_pkg_id" text NOT NULL,
	"vnf_provider" text NOT NULL,
	"vnf_product_name" text NOT NULL,
	"vnf_software_version" text NOT NULL,
	"vnfd_version" text NOT NULL,
	"instantiation_state" text NOT NULL,
	"vim_connection_info" jsonb NOT NULL,
	"instantiated_vnf_info" jsonb,
	"metadata" jsonb NOT NULL,
	"stack_id" text,
	"vim_id" text,
	"instantiate_params_sealed" text,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "vnf_lcm_op_occs" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text DEFAULT '' NOT NULL,
	"vnf_instance_id" text NOT NULL,
	"operation" text NOT NULL,
	"operation_state" text NOT NULL,
	"state_entered_time" text NOT NULL,
	"start_time" text NOT NULL,
	"is_automatic_invocation" boolean DEFAULT false NOT NULL,
	"operation_params" jsonb NOT NULL,
	"operation_params_sealed" text NOT NULL,
	"is_cancel_pending" boolean DEFAULT false NOT NULL,
	"cancel_mode" text,
	"error" jsonb,
	"resource_changes" jsonb,
	"changed_info" jsonb,
	"lcm_coordinations" jsonb,
	"rejected_lcm_coordinations" jsonb,
	"current_step" text,
	"rolling_progress" jsonb,
	"workflow_started" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "vnf_package_files" (
	"package_id" text NOT NULL,
	"path" text NOT NULL,
	"content" "bytea" NOT NULL,
	CONSTRAINT "vnf_package_files_package_id_path_pk" PRIMARY KEY("package_id","path")
);
--> statement-breakpoint
CREATE TABLE "vnf_packages" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text DEFAULT '' NOT NULL,
	"onboarding_state" text NOT NULL,
	"operational_state" text NOT NULL,
	"usage_state" text NOT NULL,
	"user_defined_data" jsonb NOT NULL,
	"vnfd_id" text,
	"vnf_provider" text,
	"vnf_product_name" text,
	"vnf_software_version" text,
	"vnfd_version" text,
	"checksum" jsonb,
	"onboarding_failure_details" jsonb,
	"vnfd" jsonb,
	"vnfd_files" jsonb,
	"software_images" jsonb,
	"additional_artifacts" jsonb,
	"created_at" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "vnf_package_files" ADD CONSTRAINT "vnf_package_files_package_id_vnf_packages_id_fk" FOREIGN KEY ("package_id") REFERENCES "public"."vnf_packages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "vims_project" ON "vims" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "vnf_instances_project" ON "vnf_instances" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "op_occs_instance" ON "vnf_lcm_op_occs" USING btree ("vnf_instance_id");--> statement-breakpoint
CREATE INDEX "op_occs_state" ON "vnf_lcm_op_occs" USING btree ("operation_state");--> statement-breakpoint
CREATE INDEX "op_occs_project" ON "vnf_lcm_op_occs" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "vnf_packages_vnfd_id" ON "vnf_packages" USING btree ("vnfd_id");--> statement-breakpoint
CREATE INDEX "vnf_packages_project" ON "vnf_packages" USING btree ("project_id");