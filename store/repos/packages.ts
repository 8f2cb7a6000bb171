/** VNF packages: as a project sees them (Scope), and their onboarding states. */
import { and, count, desc, eq, ne, sum } from 'drizzle-orm';
import { checkQuota } from '../quota';
import type { Store } from '../store';
import type { PackageFileEntry } from './package-files';
import { json, listPage, text, type ListSpec, type PageRequest } from './list-page';
import { first, type PackageRow } from './rows';
import { owned, ownedAnd, type Scope } from './scope';

export type { PackageRow };
type Json = Record<string, unknown>;

/** SOL005 VnfPkgInfo: the attributes a list filter reaches, in the package's columns. */
export const PACKAGE_LIST: ListSpec = {
  table: (t) => t.vnfPackages,
  created: 'createdAt',
  attributes: {
    id: text((t) => t.vnfPackages.id),
    vnfdId: text((t) => t.vnfPackages.vnfdId),
    vnfProvider: text((t) => t.vnfPackages.vnfProvider),
    vnfProductName: text((t) => t.vnfPackages.vnfProductName),
    vnfSoftwareVersion: text((t) => t.vnfPackages.vnfSoftwareVersion),
    vnfdVersion: text((t) => t.vnfPackages.vnfdVersion),
    onboardingState: text((t) => t.vnfPackages.onboardingState),
    operationalState: text((t) => t.vnfPackages.operationalState),
    usageState: text((t) => t.vnfPackages.usageState),
    checksum: json((t) => t.vnfPackages.checksum),
    userDefinedData: json((t) => t.vnfPackages.userDefinedData),
  },
  // the parsed VNFD and its file list: the package's own resources show them, not its list
  unlisted: { vnfd: null, vnfdFiles: null },
  // (the checksum, small and mandatory once onboarded, is always read)
  omittable: {
    softwareImages: { softwareImages: null }, additionalArtifacts: { additionalArtifacts: null },
    userDefinedData: { userDefinedData: {} }, onboardingFailureDetails: { onboardingFailureDetails: null },
  },
};

/** One page of a project's packages, filtered in SQL. */
export function pageOfPackages(store: Store, scope: Scope, page: PageRequest) {
  return listPage<PackageRow>(store, PACKAGE_LIST, (t) => owned(t.vnfPackages.projectId, scope), page);
}

export function findPackage(store: Store, scope: Scope, id: string): Promise<PackageRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.vnfPackages).where(ownedAnd(t.vnfPackages.projectId, scope, eq(t.vnfPackages.id, id))).limit(1)));
}

/**
 * The package a vnfdId names for this project: the onboarded one (a project
 * cannot onboard a vnfdId twice), preferring ENABLED. Another project's
 * package of the same vnfdId is never picked: nobody can shadow your VNFD.
 */
export function packageForVnfd(store: Store, scope: Scope, vnfdId: string): Promise<PackageRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.vnfPackages)
    .where(and(eq(t.vnfPackages.vnfdId, vnfdId), eq(t.vnfPackages.onboardingState, 'ONBOARDED'), owned(t.vnfPackages.projectId, scope)))
    .orderBy(desc(eq(t.vnfPackages.operationalState, 'ENABLED')), desc(t.vnfPackages.createdAt)).limit(1)));
}

/** A new package in CREATED, unless the project holds `quota` packages already (QuotaExceeded, nothing written); returns the row written. */
export function createPackage(store: Store, row: { id: string; projectId: string; userDefinedData: Json }, quota?: number): Promise<PackageRow> {
  return store.tx(async ({ db, t }) => {
    if (quota !== undefined) {
      const [{ n }] = await db.select({ n: count() }).from(t.vnfPackages).where(eq(t.vnfPackages.projectId, row.projectId));
      checkQuota('packages', quota, n);
    }
    const [made] = await db.insert(t.vnfPackages).values({
      ...row, onboardingState: 'CREATED', operationalState: 'DISABLED', usageState: 'NOT_IN_USE', createdAt: new Date().toISOString(),
    }).returning();
    return made;
  });
}

/**
 * Read-merge-write in one transaction (a concurrent PATCH, from another API
 * process too, cannot lose keys): `change` gets the fresh row and returns the
 * new operationalState and userDefinedData, or throws to write nothing.
 */
export function modifyPackage(store: Store, scope: Scope, id: string,
  change: (p: PackageRow) => Pick<PackageRow, 'operationalState' | 'userDefinedData'>): Promise<void> {
  return store.tx(async ({ db, t }) => {
    const p = await first(db.select().from(t.vnfPackages).where(ownedAnd(t.vnfPackages.projectId, scope, eq(t.vnfPackages.id, id))).limit(1));
    if (!p) throw new NoPackage(id);
    await db.update(t.vnfPackages).set(change(p)).where(eq(t.vnfPackages.id, id));
  });
}

export class NoPackage extends Error {
  constructor(readonly packageId: string) { super(`VNF package ${packageId} not found`); }
}

/** Deletes the package (its file index goes with it: foreign key, on delete cascade; its content is the caller's to delete). */
export function deletePackage(store: Store, id: string): Promise<void> {
  return store.read(async ({ db, t }) => { await db.delete(t.vnfPackages).where(eq(t.vnfPackages.id, id)); });
}

/**
 * CREATED -> PROCESSING, only from CREATED (two uploads cannot both win); false when it was not CREATED. With
 * `upload`, its bytes are recorded and counted against the project's limit with its other packages' (QuotaExceeded, nothing written).
 */
export function claimUpload(store: Store, id: string, upload?: { bytes: number; limit: number }): Promise<boolean> {
  return store.tx(async ({ db, t }) => {
    if (upload) {
      const p = await first(db.select({ projectId: t.vnfPackages.projectId }).from(t.vnfPackages).where(eq(t.vnfPackages.id, id)).limit(1));
      if (!p) return false;
      const [{ used }] = await db.select({ used: sum(t.vnfPackages.contentBytes) }).from(t.vnfPackages)
        .where(and(eq(t.vnfPackages.projectId, p.projectId), ne(t.vnfPackages.id, id)));
      checkQuota('packageBytes', upload.limit, Number(used ?? 0), upload.bytes);
    }
    return (await db.update(t.vnfPackages).set({ onboardingState: 'PROCESSING', onboardingFailureDetails: null, ...(upload ? { contentBytes: upload.bytes } : {}) })
      .where(and(eq(t.vnfPackages.id, id), eq(t.vnfPackages.onboardingState, 'CREATED'))).returning({ id: t.vnfPackages.id })).length > 0;
  });
}

/** Back to CREATED (the upload could not be put in place, or the onboarding workflow not started). */
export function unclaimUpload(store: Store, id: string): Promise<void> {
  return store.read(async ({ db, t }) => { await db.update(t.vnfPackages).set({ onboardingState: 'CREATED' }).where(eq(t.vnfPackages.id, id)); });
}

/** UPLOADING (only older versions set it) back to CREATED; returns how many. */
export function resetUploading(store: Store): Promise<number> {
  return store.read(async ({ db, t }) => (await db.update(t.vnfPackages).set({ onboardingState: 'CREATED' })
    .where(eq(t.vnfPackages.onboardingState, 'UPLOADING')).returning({ id: t.vnfPackages.id })).length);
}

export async function processingPackageIds(store: Store): Promise<string[]> {
  const rows = await store.read(({ db, t }) => db.select({ id: t.vnfPackages.id }).from(t.vnfPackages).where(eq(t.vnfPackages.onboardingState, 'PROCESSING')));
  return rows.map((r) => r.id);
}

/** A package of any project (the system's view). */
export function packageById(store: Store, id: string): Promise<PackageRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.vnfPackages).where(eq(t.vnfPackages.id, id)).limit(1)));
}

export interface Onboarded {
  vnfdId: string;
  fields: Pick<PackageRow, 'vnfProvider' | 'vnfProductName' | 'vnfSoftwareVersion' | 'vnfdVersion' | 'checksum' | 'vnfd' | 'vnfdFiles' | 'softwareImages' | 'additionalArtifacts'>;
  /** The index of the package's files, whose bytes are already in the content store. */
  files: PackageFileEntry[];
}

/** Index rows per insert: well under SQLite's bound-parameter limit. */
const INDEX_BATCH = 500;

/**
 * The package ONBOARDED and ENABLED with its file index, in one transaction; or,
 * when its project has already onboarded the vnfdId (one package per vnfdId
 * in a project, as Tacker), nothing and the id of that package.
 */
export function recordOnboarded(store: Store, id: string, o: Onboarded): Promise<{ twin?: string }> {
  return store.tx(async ({ db, t }) => {
    const self = await first(db.select({ projectId: t.vnfPackages.projectId }).from(t.vnfPackages).where(eq(t.vnfPackages.id, id)).limit(1));
    const twin = await first(db.select({ id: t.vnfPackages.id }).from(t.vnfPackages).where(and(
      eq(t.vnfPackages.projectId, self?.projectId ?? ''), eq(t.vnfPackages.vnfdId, o.vnfdId), eq(t.vnfPackages.onboardingState, 'ONBOARDED'), ne(t.vnfPackages.id, id),
    )).limit(1));
    if (twin) return { twin: twin.id };
    await db.delete(t.vnfPackageFiles).where(eq(t.vnfPackageFiles.packageId, id));
    for (let i = 0; i < o.files.length; i += INDEX_BATCH) {
      await db.insert(t.vnfPackageFiles).values(o.files.slice(i, i + INDEX_BATCH).map((f) => ({ packageId: id, ...f })));
    }
    await db.update(t.vnfPackages).set({
      onboardingState: 'ONBOARDED', operationalState: 'ENABLED', onboardingFailureDetails: null, vnfdId: o.vnfdId, ...o.fields,
    }).where(eq(t.vnfPackages.id, id));
    return {};
  });
}

/** Onboarding failed: CREATED and DISABLED again, no file index, and why. */
export function recordOnboardingFailed(store: Store, id: string, reason: string): Promise<void> {
  return store.tx(async ({ db, t }) => {
    await db.delete(t.vnfPackageFiles).where(eq(t.vnfPackageFiles.packageId, id));
    await db.update(t.vnfPackages).set({
      onboardingState: 'CREATED', operationalState: 'DISABLED',
      onboardingFailureDetails: { title: 'Onboarding failed', status: 422, detail: reason },
    }).where(eq(t.vnfPackages.id, id));
  });
}
