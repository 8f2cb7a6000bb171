/** Where package content lives (PACKAGE_STORE): the product's database or a directory (store/content). */
export const CONTENT_STORE_KINDS = ['database', 'directory'] as const;
export type ContentStoreKind = (typeof CONTENT_STORE_KINDS)[number];
