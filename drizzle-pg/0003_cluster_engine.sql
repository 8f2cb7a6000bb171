CREATE TABLE "cluster_nodes" (
	"cluster_id" text NOT NULL,
	"server_id" text NOT NULL,
	"name" text NOT NULL,
	"address" text NOT NULL,
	"role" text NOT NULL,
	"nodegroup" text NOT NULL,
	"host_key_id" text NOT NULL,
	"join_state" text NOT NULL,
	"done_steps" jsonb NOT NULL,
	"pki_generation" integer DEFAULT 1 NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "cluster_nodes_cluster_id_server_id_pk" PRIMARY KEY("cluster_id","server_id"),
	CONSTRAINT "cluster_nodes_role" CHECK (role IN ('master', 'worker')),
	CONSTRAINT "cluster_nodes_join_state" CHECK (join_state IN ('pending', 'installing', 'joined', 'removing'))
);
--> statement-breakpoint
CREATE TABLE "cluster_pki" (
	"cluster_id" text NOT NULL,
	"generation" integer NOT NULL,
	"certs" jsonb NOT NULL,
	"keys_sealed" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "cluster_pki_cluster_id_generation_pk" PRIMARY KEY("cluster_id","generation")
);
--> statement-breakpoint
CREATE TABLE "clusters" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"vnf_instance_id" text,
	"vim_id" text,
	"endpoint" text,
	"api_address" text,
	"settings" jsonb NOT NULL,
	"secrets_sealed" text NOT NULL,
	"pki_generation" integer DEFAULT 1 NOT NULL,
	"registered_vim_id" text,
	"health_status" text,
	"health_status_reason" jsonb,
	"created_at" text NOT NULL,
	"updated_at" text,
	CONSTRAINT "clusters_kind" CHECK (kind IN ('vnf', 'magnum')),
	CONSTRAINT "clusters_health_status" CHECK (health_status IS NULL OR health_status IN ('HEALTHY', 'UNHEALTHY', 'UNKNOWN'))
);
--> statement-breakpoint
ALTER TABLE "cluster_nodes" ADD CONSTRAINT "cluster_nodes_cluster_id_clusters_id_fk" FOREIGN KEY ("cluster_id") REFERENCES "public"."clusters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cluster_pki" ADD CONSTRAINT "cluster_pki_cluster_id_clusters_id_fk" FOREIGN KEY ("cluster_id") REFERENCES "public"."clusters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "clusters" ADD CONSTRAINT "clusters_vim_id_vims_id_fk" FOREIGN KEY ("vim_id") REFERENCES "public"."vims"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "clusters" ADD CONSTRAINT "clusters_registered_vim_id_vims_id_fk" FOREIGN KEY ("registered_vim_id") REFERENCES "public"."vims"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "clusters_project" ON "clusters" USING btree ("project_id");--> statement-breakpoint
CREATE UNIQUE INDEX "clusters_vnf_instance" ON "clusters" USING btree ("vnf_instance_id");