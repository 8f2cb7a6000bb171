CREATE TABLE "coordination_waits" (
	"id" text PRIMARY KEY NOT NULL,
	"op_occ_id" text NOT NULL,
	"args" text NOT NULL,
	"task_token" text NOT NULL,
	"location" text,
	"deadline" bigint NOT NULL,
	"timeout_ms" bigint NOT NULL,
	"next_poll_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "coordination_waits" ADD CONSTRAINT "coordination_waits_op_occ_id_vnf_lcm_op_occs_id_fk" FOREIGN KEY ("op_occ_id") REFERENCES "public"."vnf_lcm_op_occs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "coordination_waits_due" ON "coordination_waits" USING btree ("next_poll_at");