/** The production compose file cannot be started here (no Docker engine); check its shape. */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

test('temporal-docker-compose.yml: Temporal on PostgreSQL with UI and admin tools', () => {
  const doc = parse(fs.readFileSync(path.resolve(__dirname, '../temporal-docker-compose.yml'), 'utf8'));
  const s = doc.services;
  expect(Object.keys(s).sort()).toEqual(['postgresql', 'temporal', 'temporal-admin-tools', 'temporal-ui']);
  expect(s.temporal.environment.DB).toBe('postgres12');
  expect(s.temporal.environment.POSTGRES_SEEDS).toBe('postgresql');
  expect(s.temporal.ports).toContain('7233:7233');
  expect(s['temporal-ui'].environment.TEMPORAL_ADDRESS).toBe('temporal:7233');
  for (const name of Object.keys(s)) {
    for (const dep of Object.keys(s[name].depends_on ?? {})) expect(s).toHaveProperty(dep);
    expect(s[name].image).toMatch(/^[a-z0-9/._-]+:[0-9][\w.]*$/);
  }
  // Our search attributes are registered by admin tools.
  expect(s['temporal-admin-tools'].command.join(' ')).toMatch(/VnfInstanceId LcmOperation LcmOperationState/);
});
