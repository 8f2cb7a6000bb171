import type { Client } from '@temporalio/client';
import type { Config } from '../common/config';
import type { Db } from '../common/db';
import type { Logger } from '../common/log';
import type { SecretBox } from '../common/secrets';

/** What every API route works with. */
export interface ApiContext { db: Db; box: SecretBox; cfg: Config; temporal: Client; log: Logger }
