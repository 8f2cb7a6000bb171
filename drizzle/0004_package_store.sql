-- Uploaded zips now live in the package store (PACKAGE_STORE_DIR), not in the database.
-- The old BLOBs are kept under a name no code writes; the API writes them out as files at its next start and drops the table.
ALTER TABLE `vnf_package_contents` RENAME TO `legacy_package_contents`;
