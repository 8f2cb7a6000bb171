/** A CADF notification's POST to its webhook (MAGNUM_NOTIFICATION_WEBHOOKS, by the index it was queued for). */
import type { ActivityDeps } from '../lcm-activities/deps';
import type { OutboxRow } from '../store/repos/notifications';
import { OutboundRefused, showUrl } from '../common/outbound';
import { redactString } from '../common/secrets';
import { request } from '../infra/openstack/http';
import type { Attempt } from './contracts';

export async function postCadf({ cfg }: ActivityDeps, row: OutboxRow): Promise<Attempt> {
  const url = cfg.magnum.notificationWebhooks[row.sink ?? -1];
  if (!url) return { problem: `the webhook ${row.destination} (sink ${row.sink}) is no longer configured in MAGNUM_NOTIFICATION_WEBHOOKS`, final: true };
  try {
    const r = await request('POST', url, {
      headers: { 'content-type': 'application/json' }, body: row.payload, timeoutMs: cfg.notifications.httpTimeoutMs, purpose: 'CADF webhook', maxBytes: 64 * 1024,
    });
    return r.status >= 200 && r.status < 300 ? undefined : { problem: `${showUrl(url)} answered ${r.status}` };
  } catch (e) {
    return { problem: redactString((e as Error).message).slice(0, 300), final: e instanceof OutboundRefused };
  }
}
