/**
 * Column kinds the SQLite schema files need beyond drizzle's own, so that
 * their PostgreSQL twins (scripts/generate-pg-schema.ts) get the right type.
 */
import { integer } from 'drizzle-orm/sqlite-core';

/** An integer that needs 64 bits (byte counts, epoch milliseconds): SQLite's integers are 64-bit already; PostgreSQL's twin is bigint. */
export const int64 = (name: string) => integer(name);
