ALTER TABLE "vnf_instances" ADD COLUMN "extensions" jsonb;--> statement-breakpoint
ALTER TABLE "vnf_instances" ADD COLUMN "vnf_configurable_properties" jsonb;--> statement-breakpoint
ALTER TABLE "vnf_lcm_op_occs" ADD COLUMN "changed_ext_connectivity" jsonb;