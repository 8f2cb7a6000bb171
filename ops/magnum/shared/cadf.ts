/**
 * CADF notifications of cluster operations, as Magnum sends them (magnum/
 * conductor/utils.py notify_about_cluster_operation, with pycadf): the oslo
 * envelope {event_type magnum.cluster.<action>, message_id, priority,
 * publisher_id container-infra.<host>, timestamp} around the CADF event.
 * Pure: the caller gives the facts and the time.
 */
import crypto from 'node:crypto';
import type { ClusterFacts } from './cluster-facts';
import { coeVersionOf, masterAddresses, masterCountOf, nodeAddresses, nodeCountOf } from './cluster-facts';

export type CadfOutcome = 'pending' | 'success' | 'failure';

/** The outcome a status reports: *_IN_PROGRESS pending, *_COMPLETE success, *_FAILED failure. */
export function outcomeOf(status: string): CadfOutcome | undefined {
  if (status.endsWith('_IN_PROGRESS')) return status.startsWith('ROLLBACK') ? undefined : 'pending';
  if (status.endsWith('_COMPLETE')) return 'success';
  if (status.endsWith('_FAILED')) return 'failure';
  return undefined;
}

/** A stable id per operation and status, so a retried activity records the event once. */
export function cadfEventId(operationId: string, status: string): string {
  const h = crypto.createHash('sha256').update(`${operationId}\n${status}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const pyTime = (d: Date) => d.toISOString().replace('T', ' ').replace('Z', '000');
const cadfTime = (d: Date) => d.toISOString().replace('Z', '000+00:00');

export function cadfNotification(o: {
  id: string; action: 'create' | 'update' | 'delete'; outcome: CadfOutcome; facts: ClusterFacts; host: string; at: Date;
}): Record<string, unknown> {
  const { row } = o.facts;
  const a = row.attrs;
  const content = {
    status: row.status, status_reason: row.statusReason, project_id: row.projectId, created_at: row.createdAt, updated_at: row.updatedAt,
    cluster_template_id: row.templateId, keypair: a.keypair ?? null, 'docker_volume_size:': a.docker_volume_size ?? null, labels: a.labels,
    master_flavor_id: a.master_flavor_id ?? null, flavor_id: a.flavor_id ?? null, stack_id: row.stackId, health_status: o.facts.engine?.healthStatus ?? null,
    create_timeout: a.create_timeout, api_address: o.facts.engine?.apiAddress ?? null, discovery_url: a.discovery_url ?? null,
    node_addresses: nodeAddresses(o.facts), master_addresses: masterAddresses(o.facts), node_count: nodeCountOf(o.facts), master_count: masterCountOf(o.facts),
    coe_version: coeVersionOf(o.facts),
  };
  const observerId = crypto.createHash('sha256').update(o.host).digest('hex').slice(0, 32);
  return {
    event_type: `magnum.cluster.${o.action}`,
    message_id: o.id,
    priority: o.outcome === 'failure' ? 'ERROR' : 'INFO',
    publisher_id: `container-infra.${o.host}`,
    timestamp: pyTime(o.at),
    payload: {
      typeURI: 'http://schemas.dmtf.org/cloud/audit/1.0/event',
      eventType: 'activity',
      id: o.id,
      eventTime: cadfTime(o.at),
      action: o.action,
      outcome: o.outcome,
      initiator: { typeURI: 'service/security/account/user', id: row.userId, user_id: row.userId, project_id: row.projectId },
      target: {
        typeURI: 'service/magnum/cluster', id: row.id, name: row.name,
        attachments: [{ name: 'cluster_data', typeURI: 'service/magnum/cluster', content }],
      },
      observer: { typeURI: 'service/magnum/cluster', id: observerId },
    },
  };
}
