/** SOL005 VnfPkgInfo parts derived once at onboarding: softwareImages and additionalArtifacts. */
import type { SwImage, Vnfd } from '../model/vnfd';

/**
 * SOL005 VnfPackageSoftwareImageInfo of every image the VNFD names (`createdAt`: when the package was onboarded).
 * An image file in the package (`files`: the package's index) gives what the VNFD leaves out: its SHA-256 as the
 * mandatory checksum, its size.
 */
export function softwareImages(vnfd: Vnfd, createdAt: string, files: Record<string, { sha256: string; size: number }> = {}): Record<string, unknown>[] {
  const seen = new Map<string, Record<string, unknown>>();
  const add = (id: string, img?: SwImage) => {
    if (!img || seen.has(id)) return;
    const inPackage = img.file ? files[img.file] : undefined;
    const checksum = img.checksum ?? (inPackage && { algorithm: 'SHA-256', hash: inPackage.sha256 });
    seen.set(id, {
      id, name: img.name, provider: vnfd.provider, version: img.version ?? '',
      ...(checksum ? { checksum } : {}), containerFormat: img.containerFormat?.toUpperCase() ?? 'BARE',
      diskFormat: img.diskFormat?.toUpperCase() ?? 'QCOW2', createdAt,
      minDisk: img.minDiskGb ?? 0, minRam: img.minRamMb ?? 0, size: img.sizeBytes ?? inPackage?.size ?? 0,
      imagePath: img.file ?? '', userMetadata: {},
    });
  };
  for (const f of Object.values(vnfd.flavours)) {
    for (const v of Object.values(f.vdus)) add(v.id, v.swImage);
    for (const s of Object.values(f.storages)) add(s.id, s.swImage);
  }
  return [...seen.values()];
}

/** Every file that is not metadata, a VNFD yaml or a software image. */
export function additionalArtifacts(files: Record<string, { sha256: string }>, vnfdFiles: string[], images: Record<string, unknown>[]): Record<string, unknown>[] {
  const skip = new Set([...vnfdFiles, ...images.map((i) => String(i.imagePath))]);
  return Object.keys(files)
    .filter((p) => !p.startsWith('TOSCA-Metadata/') && !skip.has(p))
    .sort()
    .map((artifactPath) => ({ artifactPath, checksum: { algorithm: 'SHA-256', hash: files[artifactPath].sha256 }, metadata: {} }));
}
