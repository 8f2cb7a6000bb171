import type { SqlStore } from '../sql-store';
import { DatabaseContentStore } from './database';
import { DirectoryContentStore } from './directory';
import type { ContentStore } from './types';
import type { ContentStoreKind } from '../../common/settings/content-store';

export * from './types';
export { DatabaseContentStore } from './database';
export { DirectoryContentStore } from './directory';

/** PACKAGE_STORE's store: the product's database, or files under PACKAGE_STORE_DIR. */
export function openContentStore(kind: ContentStoreKind, db: SqlStore, dir: string): ContentStore {
  return kind === 'database' ? new DatabaseContentStore(db) : new DirectoryContentStore(dir);
}

/** Where a package's content lives in the store: its uploaded zip, and its files once onboarded. */
export const packageKeys = {
  /** Every key of the package (delete it all with deletePrefix). */
  all: (packageId: string) => `${packageId}/`,
  zip: (packageId: string) => `${packageId}/package.zip`,
  files: (packageId: string) => `${packageId}/files/`,
  file: (packageId: string, path: string) => `${packageId}/files/${path}`,
};
