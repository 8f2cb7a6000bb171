/** What every activity module is built from (one set per worker process). */
import type { Config } from '../common/config';
import type { Store } from '../store';
import type { Logger } from '../common/log';
import type { SecretBox } from '../common/secrets';

export interface ActivityDeps { db: Store; box: SecretBox; cfg: Config; log: Logger }
