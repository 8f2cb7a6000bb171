/** What every Magnum view shares: Magnum's timestamps and self/bookmark links. */

/** 2016-08-29T06:51:31+00:00, as Magnum shows times. */
export function magnumTime(iso: string | null | undefined): string | null {
  if (!iso) return null;
  return `${iso.replace(/\.\d+Z$/, '').replace(/Z$/, '')}+00:00`;
}

export function links(base: string, collection: string, id: string) {
  return [
    { href: `${base}/v1/${collection}/${id}`, rel: 'self' },
    { href: `${base}/${collection}/${id}`, rel: 'bookmark' },
  ];
}

/** Absent values as null: Magnum shows every field of a resource. */
export function orNull<T>(v: T | undefined): T | null {
  return v === undefined ? null : v;
}
