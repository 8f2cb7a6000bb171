/**
 * Package onboarding: the zip is read from the content store and every file
 * streamed into it beside the zip; then the index and the VNFD are recorded
 * in one transaction, or why not.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { createHash } from 'node:crypto';
import { recordOnboarded, recordOnboardingFailed } from '../../../store/repos/packages';
import { loadPackage, type PackageLimits } from '../../../vnfpkg';
import { packageKeys, type ContentStore } from '../../../store/content';
import { PackageError } from '../../../vnfpkg/csar';
import { additionalArtifacts, softwareImages } from '../../../vnfpkg/pkg-info';
import type { ActivityDeps } from '../../../lcm-activities/deps';

export function packageActivities({ db, log, cfg }: ActivityDeps) {
  const { packageUnzippedBytes, packageRatio, packageEntries, packageVnfdBytes, packageVnfdFileBytes, vduInstances } = cfg.limits;
  const limits: PackageLimits = {
    unzippedBytes: packageUnzippedBytes, ratio: packageRatio, entries: packageEntries, vnfdBytes: packageVnfdBytes, vnfdFileBytes: packageVnfdFileBytes, vduInstances,
  };
  return {
    async onboardPackage({ packageId }: { packageId: string }): Promise<void> {
      const zip = await db.content.size(packageKeys.zip(packageId));
      if (zip === undefined) throw ApplicationFailure.nonRetryable(`package ${packageId} has no uploaded content in the ${db.content.kind} content store`, 'PackageError');
      let loaded;
      try {
        // A limit (PACKAGE_MAX_*, MAX_VDU_INSTANCES) is a PackageError too: a bomb fails once, it is not retried.
        loaded = await loadPackage({ content: db.content, packageId }, limits);
      } catch (e) {
        if (e instanceof PackageError) throw ApplicationFailure.nonRetryable(e.message, 'PackageError');
        throw e;
      }
      const { csar, vnfd } = loaded;
      const images = softwareImages(vnfd, new Date().toISOString(), csar.files);
      // One package per vnfdId in a project (as Tacker): nobody instantiates a VNFD that another upload silently replaced.
      const { twin } = await recordOnboarded(db, packageId, {
        vnfdId: vnfd.vnfdId,
        fields: {
          vnfProvider: vnfd.provider, vnfProductName: vnfd.productName, vnfSoftwareVersion: vnfd.softwareVersion, vnfdVersion: vnfd.vnfdVersion,
          checksum: { algorithm: 'SHA-256', hash: await zipSha256(db.content, packageId) },
          vnfd, vnfdFiles: csar.vnfdFiles,
          softwareImages: images, additionalArtifacts: additionalArtifacts(csar.files, csar.vnfdFiles, images),
        },
        files: Object.entries(csar.files).map(([path, f]) => ({ path, size: f.size, sha256: f.sha256 })),
      });
      if (twin) throw ApplicationFailure.nonRetryable(`vnfdId ${vnfd.vnfdId} is already onboarded in this project as VNF package ${twin}; delete that package first`, 'PackageError');
      log.info({ packageId, vnfdId: vnfd.vnfdId }, 'package onboarded');
    },

    async failOnboarding({ packageId, reason }: { packageId: string; reason: string }): Promise<void> {
      // Zip and extracted files, before CREATED is visible: a new upload's zip must not be the one removed.
      await db.content.deletePrefix(packageKeys.all(packageId));
      await recordOnboardingFailed(db, packageId, reason);
      log.warn({ packageId, reason }, 'package onboarding failed');
    },
  };
}

/** The uploaded zip's SHA-256 (VnfPkgInfo.checksum), streamed: one sequential read of the zip, never whole in memory. */
async function zipSha256(content: ContentStore, packageId: string): Promise<string> {
  const zip = await content.get(packageKeys.zip(packageId));
  if (!zip) throw new Error(`the zip of VNF package ${packageId} went away while it was onboarded`);
  const hash = createHash('sha256');
  for await (const piece of zip.stream) hash.update(piece);
  return hash.digest('hex');
}

export type PackageActivities = ReturnType<typeof packageActivities>;
