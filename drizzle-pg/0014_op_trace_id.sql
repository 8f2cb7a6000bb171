ALTER TABLE "magnum_clusters" ADD COLUMN "trace_id" text;--> statement-breakpoint
ALTER TABLE "vnf_lcm_op_occs" ADD COLUMN "trace_id" text;--> statement-breakpoint
CREATE INDEX "op_occs_trace" ON "vnf_lcm_op_occs" USING btree ("trace_id");