/**
 * Paths inside a package: always relative, '/'-separated, without '.' or
 * '..' segments ("Definitions/x.yaml"). Everything that turns a name written
 * by the package author into a package path goes through here, so a name
 * that would escape the package is caught in one place.
 */

/** True for "http://…", "https://…" and other scheme-qualified names. */
export function isUrl(name: string): boolean {
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(name);
}

/**
 * Normalizes a name relative to the package root. Returns undefined when the
 * name is absolute or climbs above the root, i.e. would point outside.
 */
export function toPackagePath(name: string): string | undefined {
  const slashed = name.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[a-zA-Z]:/.test(slashed) || slashed.includes('\0')) return undefined;
  const out: string[] = [];
  for (const segment of slashed.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else {
      out.push(segment);
    }
  }
  return out.length > 0 ? out.join('/') : undefined;
}

/** Folder of a package path ("" for files at the root). */
export function folderOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/** Resolves `name` relative to the folder holding `fromFile`; undefined if it leaves the package. */
export function resolveFrom(fromFile: string, name: string): string | undefined {
  if (name.startsWith('/') || name.startsWith('\\')) return undefined;
  const folder = folderOf(fromFile);
  return toPackagePath(folder ? `${folder}/${name}` : name);
}
