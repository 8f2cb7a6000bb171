import { defineConfig } from 'drizzle-kit';

/** PostgreSQL (DATABASE_URL): `npm run db:generate:pg`. SQLite's is drizzle.config.ts. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './store/schema-pg.ts',
  out: './drizzle-pg',
});
