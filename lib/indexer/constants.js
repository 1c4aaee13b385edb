// The indexer's constants, read once from native (Rust owns them).
import { native } from '../native.js';

const constants = JSON.parse(native.indexerConstants());

export const INDEX_ENVELOPE_VERSION = constants.indexEnvelopeVersion;
export const KERNEL_PAYLOAD_VERSION = constants.kernelPayloadVersion;
// Plain objects and arrays, as the TypeScript package exports them.
export const DEFAULT_DISCOVERY = constants.defaultDiscovery;
export const DEFAULT_PYTHON_DISCOVERY = constants.defaultPythonDiscovery;
export const DEFAULT_JAVA_DISCOVERY = constants.defaultJavaDiscovery;
export const DEFAULT_SCALA_DISCOVERY = constants.defaultScalaDiscovery;
export const KINDGI_CONFIG_FILENAMES = constants.configFilenames;
export const KINDGI_JSON_CONFIG_FILENAME = constants.jsonConfigFilename;
export const PYPROJECT_FILENAME = constants.pyprojectFilename;
export const RESERVED_CHECK_IDS = constants.reservedCheckIds;
/** Each provider preset's own settings, by preset name (`KindgiPresetDeclaration`'s table). */
export const PRESET_DECLARATION_SETTINGS = {
  anthropic: [],
  'azure-openai': ['resourceName', 'deployments'],
  bedrock: ['region'],
  gemini: ['project'],
  'gemini-api': [],
  groq: [],
  openai: [],
  openrouter: [],
};

/** Internal: the field lists JavaScript reads off each kind's default export. */
export const PRIMITIVE_FIELDS = constants.fields;
export const TEST_FILE_PATTERN = constants.testFilePattern;
export const JVM_LANGUAGES = constants.jvmLanguages;
export const NON_FINITE_MARKER = constants.nonFiniteMarker;
