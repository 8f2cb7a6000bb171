/** Package onboarding: parse and store in one transaction, or record why not. */
import { ApplicationFailure } from '@temporalio/activity';
import crypto from 'node:crypto';
import { recordOnboarded, recordOnboardingFailed } from '../../../common/db/repos/packages';
import { loadPackage, type PackageLimits } from '../../../vnfpkg';
import { PackageError } from '../../../vnfpkg/csar';
import { PackageStore } from '../../../vnfpkg/package-store';
import { additionalArtifacts, softwareImages } from '../../../vnfpkg/pkg-info';
import type { ActivityDeps } from '../../../activities/deps';

export function packageActivities({ db, log, cfg }: ActivityDeps) {
  const store = new PackageStore(cfg.packageStoreDir);
  const { packageUnzippedBytes, packageRatio, packageEntries, packageVnfdBytes, vduInstances } = cfg.limits;
  const limits: PackageLimits = { unzippedBytes: packageUnzippedBytes, ratio: packageRatio, entries: packageEntries, vnfdBytes: packageVnfdBytes, vduInstances };
  return {
    async onboardPackage({ packageId }: { packageId: string }): Promise<void> {
      const zip = store.read(packageId);
      if (!zip) throw ApplicationFailure.nonRetryable(`package ${packageId} has no uploaded content in ${store.dir}`, 'PackageError');
      let loaded;
      try {
        // A limit (PACKAGE_MAX_*, MAX_VDU_INSTANCES) is a PackageError too: a bomb fails once, it is not retried.
        loaded = loadPackage(zip, limits);
      } catch (e) {
        if (e instanceof PackageError) throw ApplicationFailure.nonRetryable(e.message, 'PackageError');
        throw e;
      }
      const { csar, vnfd } = loaded;
      const images = softwareImages(vnfd);
      // One package per vnfdId in a project (as Tacker): nobody instantiates a VNFD that another upload silently replaced.
      const { twin } = await recordOnboarded(db, packageId, {
        vnfdId: vnfd.vnfdId,
        fields: {
          vnfProvider: vnfd.provider, vnfProductName: vnfd.productName, vnfSoftwareVersion: vnfd.softwareVersion, vnfdVersion: vnfd.vnfdVersion,
          checksum: { algorithm: 'SHA-256', hash: crypto.createHash('sha256').update(zip).digest('hex') },
          vnfd, vnfdFiles: csar.vnfdFiles,
          softwareImages: images, additionalArtifacts: additionalArtifacts(csar.files, csar.vnfdFiles, images),
        },
        files: csar.files,
      });
      if (twin) throw ApplicationFailure.nonRetryable(`vnfdId ${vnfd.vnfdId} is already onboarded in this project as VNF package ${twin}; delete that package first`, 'PackageError');
      log.info({ packageId, vnfdId: vnfd.vnfdId }, 'package onboarded');
    },

    async failOnboarding({ packageId, reason }: { packageId: string; reason: string }): Promise<void> {
      store.remove(packageId); // before CREATED is visible: a new upload's file must not be the one removed
      await recordOnboardingFailed(db, packageId, reason);
      log.warn({ packageId, reason }, 'package onboarding failed');
    },
  };
}
