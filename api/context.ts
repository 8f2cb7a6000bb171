import type { Client } from '@temporalio/client';
import type { Config } from '../common/config';
import type { Store } from '../store';
import type { Logger } from '../common/log';
import type { SecretBox } from '../common/secrets';
import type { Policy } from './auth/policy';
import type { TokenValidator } from './auth/tokens';

/** What every API route works with. */
export interface ApiContext { db: Store; box: SecretBox; cfg: Config; temporal: Client; log: Logger; tokens: TokenValidator; policy: Policy }
