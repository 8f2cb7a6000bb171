CREATE TABLE "content_chunks" (
	"object_id" text NOT NULL,
	"seq" integer NOT NULL,
	"data" "bytea" NOT NULL,
	"written_at" text NOT NULL,
	CONSTRAINT "content_chunks_object_id_seq_pk" PRIMARY KEY("object_id","seq")
);
--> statement-breakpoint
CREATE TABLE "content_objects" (
	"key" text PRIMARY KEY NOT NULL,
	"object_id" text NOT NULL,
	"size" bigint NOT NULL,
	"chunk_size" integer NOT NULL,
	"sha256" text NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "vnf_package_files" ALTER COLUMN "content" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "vnf_package_files" ADD COLUMN "size" bigint;--> statement-breakpoint
ALTER TABLE "vnf_package_files" ADD COLUMN "sha256" text;--> statement-breakpoint
CREATE UNIQUE INDEX "content_objects_object_id" ON "content_objects" USING btree ("object_id");