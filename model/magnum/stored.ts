/** What the store keeps of a Magnum cluster and a CADF event beyond their columns. */
import type { Labels } from './fields';

export interface MagnumClusterAttrs {
  keypair?: string;
  /** The labels in effect (template's, or the request's, or merged). */
  labels: Labels;
  labels_overridden: Labels;
  labels_added: Labels;
  labels_skipped: Labels;
  create_timeout: number;
  discovery_url?: string;
  docker_volume_size?: number;
  flavor_id?: string;
  master_flavor_id?: string;
  fixed_network?: string;
  fixed_subnet?: string;
  floating_ip_enabled: boolean;
  master_lb_enabled: boolean;
  merge_labels: boolean;
  coe_version?: string;
  container_version?: string;
  /** Resolved VIM ids the stack is built from (names are resolved at the API). */
  resolved: {
    vimId: string; imageId: string; flavorId: string; masterFlavorId: string; networkId: string; subnetId?: string; keypairPublicKey?: string;
    /** The subnet of Magnum's API load balancer in the stack (master_lb_enabled, from when this driver made one). */
    apiLbSubnetId?: string;
  };
}

/** Per sink (its index in the configured list, as a string): whether and when it took the event. */
export type CadfDeliveries = Record<string, { url: string; delivered: boolean; attempts: number; lastError?: string; at?: string }>;
