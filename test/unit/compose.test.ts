/** The production compose file cannot be started here (no Docker engine); check its shape. */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { SEARCH_ATTRIBUTES } from '../../common/search-attributes';

const text = fs.readFileSync(path.resolve(__dirname, '../../temporal-docker-compose.yml'), 'utf8');

test('temporal-docker-compose.yml: Temporal on PostgreSQL with UI and admin tools', () => {
  const doc = parse(text);
  const s = doc.services;
  expect(Object.keys(s).sort()).toEqual(['postgresql', 'temporal', 'temporal-admin-tools', 'temporal-ui']);
  expect(s.temporal.environment.DB).toBe('postgres12');
  expect(s.temporal.environment.POSTGRES_SEEDS).toBe('postgresql');
  expect(s['temporal-ui'].environment.TEMPORAL_ADDRESS).toBe('temporal:7233');
  for (const name of Object.keys(s)) {
    for (const dep of Object.keys(s[name].depends_on ?? {})) expect(s).toHaveProperty(dep);
    expect(s[name].image).toMatch(/^[a-z0-9/._-]+:[0-9][\w.]*$/);
  }
  // Our search attributes are registered by admin tools.
  expect(s['temporal-admin-tools'].command.join(' ')).toContain(`for sa in ${SEARCH_ATTRIBUTES.map((k) => k.name).join(' ')}; do`);
});

test('every published port is bound to 127.0.0.1 (frontend 7233, UI 8080); PostgreSQL is not published', () => {
  const s = parse(text).services;
  const published: Record<string, string[]> = {};
  for (const [name, svc] of Object.entries<{ ports?: Array<string | Record<string, unknown>> }>(s)) {
    for (const p of svc.ports ?? []) {
      // Short syntax only, with an explicit host IP; the long syntax would need host_ip: 127.0.0.1.
      expect(typeof p).toBe('string');
      expect(p).toMatch(/^127\.0\.0\.1:\d+:\d+(\/tcp)?$/);
      (published[name] ??= []).push(p as string);
    }
    expect(svc).not.toHaveProperty('network_mode', 'host');
  }
  expect(published).toEqual({ temporal: ['127.0.0.1:7233:7233'], 'temporal-ui': ['127.0.0.1:8080:8080'] });
});

test('no known database password: TEMPORAL_DB_PASSWORD is required, without a default', () => {
  const s = parse(text).services;
  const required = /^\$\{TEMPORAL_DB_PASSWORD:\?[^}]+\}$/;
  expect(s.postgresql.environment.POSTGRES_PASSWORD).toMatch(required);
  expect(s.temporal.environment.POSTGRES_PWD).toMatch(required);
  // No ${VAR:-default} / ${VAR-default} for any password, anywhere in the file.
  expect(text).not.toMatch(/PASSWORD:?-/);
  for (const svc of Object.values<{ environment?: Record<string, unknown> }>(s)) {
    for (const [k, v] of Object.entries(svc.environment ?? {})) {
      if (/PASSWORD|PWD/.test(k)) expect(String(v)).toMatch(required);
    }
  }
});

test('the Web UI is read-only', () => {
  expect(parse(text).services['temporal-ui'].environment.TEMPORAL_DISABLE_WRITE_ACTIONS).toBe('true');
});

test('the commented mTLS settings, uncommented, are a valid file with TLS on the frontend, the setup CLI, admin tools and UI', () => {
  const on = text.replace(/^(\s*)# (?=TEMPORAL_TLS_|volumes:|  - \.\/temporal-tls)/gm, '$1');
  expect(on).not.toBe(text);
  const s = parse(on).services;
  const dir = '/etc/temporal/tls';
  const mount = `./temporal-tls:${dir}:ro`;
  const t = s.temporal.environment;
  expect(t).toMatchObject({
    TEMPORAL_TLS_REQUIRE_CLIENT_AUTH: 'true',
    TEMPORAL_TLS_FRONTEND_CERT: `${dir}/server.pem`, TEMPORAL_TLS_FRONTEND_KEY: `${dir}/server-key.pem`,
    TEMPORAL_TLS_CLIENT1_CA_CERT: `${dir}/ca.pem`, TEMPORAL_TLS_SERVER_CA_CERT: `${dir}/ca.pem`,
    TEMPORAL_TLS_SERVER_CERT: `${dir}/server.pem`, TEMPORAL_TLS_SERVER_KEY: `${dir}/server-key.pem`,
    TEMPORAL_TLS_FRONTEND_SERVER_NAME: 'temporal', TEMPORAL_TLS_INTERNODE_SERVER_NAME: 'temporal',
  });
  // The clients (the setup script's CLI in the server container, admin tools, UI) present client.pem.
  for (const name of ['temporal', 'temporal-admin-tools', 'temporal-ui']) {
    expect(s[name].environment).toMatchObject({
      TEMPORAL_TLS_CA: `${dir}/ca.pem`, TEMPORAL_TLS_CERT: `${dir}/client.pem`, TEMPORAL_TLS_KEY: `${dir}/client-key.pem`,
      TEMPORAL_TLS_SERVER_NAME: 'temporal',
    });
    expect(s[name].volumes).toEqual([mount]);
  }
  // Every file named is in the mounted directory.
  for (const svc of Object.values<{ environment?: Record<string, unknown> }>(s)) {
    for (const [k, v] of Object.entries(svc.environment ?? {})) {
      if (/^TEMPORAL_TLS_/.test(k) && String(v).startsWith('/')) expect(String(v)).toMatch(/^\/etc\/temporal\/tls\/[a-z-]+\.pem$/);
    }
  }
  // Still loopback-only.
  expect(s.temporal.ports).toEqual(['127.0.0.1:7233:7233']);
});
