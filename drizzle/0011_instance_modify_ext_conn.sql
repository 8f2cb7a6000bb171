ALTER TABLE `vnf_instances` ADD `extensions` text;--> statement-breakpoint
ALTER TABLE `vnf_instances` ADD `vnf_configurable_properties` text;--> statement-breakpoint
ALTER TABLE `vnf_lcm_op_occs` ADD `changed_ext_connectivity` text;