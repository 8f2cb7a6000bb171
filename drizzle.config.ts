import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './common/db/schema.ts',
  out: './drizzle',
});
