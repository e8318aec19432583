// Public surface of #runtimes: the runtime catalogue (calendar-aware) and the installs it describes.
// A runtime is a Node.js binary plus exact dependencies, installed from runtimes/<name>/package-lock.json.
export {
  runtimeSchema,
  browserSupportSchema,
  runtimeStages,
  loadCatalogue,
  stageOn,
  assertBrowserSupported,
  RuntimeCatalogue,
  type Runtime,
  type RuntimeStage,
  type BrowserSupport,
} from './catalogue.ts';
export { runtimesRoot, lockfileDir } from './paths.ts';
export {
  findInstalled,
  installRuntime,
  installMissing,
  installStatus,
  createRuntimeInstallations,
  MARKER_FILE,
  type InstalledRuntime,
  type InstallOptions,
  type RuntimeInstallations,
  type InstallStatus,
} from './install.ts';
export { probeChromium, chromiumMajor, type ChromiumProbe } from './browser.ts';
export { runtimeManifest, NODE_PACKAGE } from './manifest.ts';
