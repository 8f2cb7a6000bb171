/**
 * Temporal wiring shared by the worker, the API and the tests: connection,
 * the typed search attributes every LCM workflow carries, and Web UI links.
 */
import { Connection, Client } from '@temporalio/client';
import type { Config } from './config';
import { SEARCH_ATTRIBUTES } from './search-attributes';

export * from './search-attributes';

export async function connectClient(cfg: Config): Promise<Client> {
  const connection = await Connection.connect({ address: cfg.temporalAddress });
  return new Client({ connection, namespace: cfg.temporalNamespace });
}

/** Registers our search attributes on the namespace (no-op when present). */
export async function ensureSearchAttributes(client: Client, namespace: string): Promise<void> {
  const { customAttributes } = await client.connection.operatorService.listSearchAttributes({ namespace });
  const missing = SEARCH_ATTRIBUTES.filter((k) => !(k.name in (customAttributes ?? {})));
  if (missing.length === 0) return;
  const searchAttributes: Record<string, number> = {};
  for (const k of missing) searchAttributes[k.name] = 2; // INDEXED_VALUE_TYPE_KEYWORD
  try {
    await client.connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
  } catch (e) {
    if (!/already exists/i.test(String((e as Error).message))) throw e;
  }
}

export function workflowUiLink(cfg: Config, workflowId: string): string {
  return `${cfg.temporalUiUrl}/namespaces/${encodeURIComponent(cfg.temporalNamespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

/** Dev server flags that pre-register the same attributes. */
export function devServerSearchAttributeArgs(): string[] {
  return SEARCH_ATTRIBUTES.flatMap((k) => ['--search-attribute', `${k.name}=Keyword`]);
}
