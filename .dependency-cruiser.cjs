/**
 * The layers, checked by dependency-cruiser (`npm run check:layers`, and a
 * unit test in `npm test`): a folder may import its own layer and the layers
 * below it, never one above, and no import circle. Type-only imports count:
 * they tie the code as much as value imports do. docs/architecture.md draws
 * the same layers. There is no list of tolerated violations: the tree has
 * none, and any new one fails.
 */

/** Top to bottom. A sub-folder named in a layer belongs to it, not to its parent folder's layer. */
const LAYERS = [
  { name: 'programs', folders: ['scripts', 'runtime', 'worker', 'bench', 'em', 'samples'] },
  { name: 'api', folders: ['api'] },
  { name: 'operations', folders: ['ops'] },
  { name: 'saga engine', folders: ['engine'] },
  { name: 'workflow building blocks', folders: ['workflow-steps'] },
  { name: 'cluster engine', folders: ['cluster'] },
  { name: 'activities', folders: ['lcm-activities', 'notify'] },
  { name: 'clients and packages', folders: ['infra', 'ssh', 'coord', 'mgmt', 'vnfpkg'] },
  { name: 'store', folders: ['store'] },
  { name: 'model', folders: ['model'] },
  { name: 'common', folders: ['common'] },
  { name: 'libraries', folders: ['lib'] },
];

const ALL = LAYERS.flatMap((l) => l.folders);
const under = (folders) => `^(${folders.join('|')})/`;
/** The sub-folders of `folders` that another layer names. */
const carvedOut = (folders) => ALL.filter((f) => folders.some((g) => f.startsWith(`${g}/`)));
const inLayer = (layer) => ({ path: under(layer.folders), ...(carvedOut(layer.folders).length ? { pathNot: under(carvedOut(layer.folders)) } : {}) });

const upward = LAYERS.slice(1).map((layer, i) => {
  const above = LAYERS.slice(0, i + 1).flatMap((l) => l.folders);
  const below = LAYERS.slice(i + 1).flatMap((l) => l.folders).filter((f) => above.some((g) => f.startsWith(`${g}/`)));
  return {
    name: `no-upward-from-${layer.name.replace(/ /g, '-')}`,
    comment: `${layer.name} (${layer.folders.join(', ')}) may not import a layer above it`,
    severity: 'error',
    from: inLayer(layer),
    to: { path: under(above), ...(below.length ? { pathNot: under(below) } : {}) },
  };
});

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'no-circular',
      comment: 'an import circle makes its files one unit: none may be understood, tested or moved alone',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'simulator-apart',
      comment: 'the VIM simulator is a cloud the product talks to over HTTP and SSH: only the programs that start it may name it',
      severity: 'error',
      from: { pathNot: '^(vimsim|runtime|scripts|bench)/' },
      to: { path: '^vimsim/' },
    },
    {
      name: 'simulator-self-contained',
      comment: 'the simulator (the workspace package @nfv-orchestrator/vimsim) imports nothing of the product: only its own files and @nfv-orchestrator/lib (small helpers that know nothing of either)',
      severity: 'error',
      from: { path: '^vimsim/' },
      to: { pathNot: '^(vimsim/|lib/|node_modules/)', dependencyTypesNot: ['core'] },
    },
    {
      name: 'lib-by-package-name',
      comment: 'lib/ is the workspace package @nfv-orchestrator/lib, shared by the product and the simulator package: it is imported by that name, never by a path out of one package into another',
      severity: 'error',
      from: { pathNot: '^lib/' },
      to: { path: '^lib/', dependencyTypes: ['local'], dependencyTypesNot: ['aliased-workspace'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|test|vimsim/test|\\.tools|data|dist|drizzle|drizzle-pg)/|^[^/]+\\.(js|ts|cjs)$|^vimsim/[^/]+\\.(js|cjs)$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
