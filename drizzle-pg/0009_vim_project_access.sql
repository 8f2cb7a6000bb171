ALTER TABLE "vims" ADD COLUMN "access_of" text;--> statement-breakpoint
ALTER TABLE "vims" ADD COLUMN "trust_id" text;--> statement-breakpoint
CREATE UNIQUE INDEX "vims_access" ON "vims" USING btree ("access_of","project_id");