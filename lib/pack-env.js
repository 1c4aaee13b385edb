// The pack's declared process environment. The rules and messages live in Rust (src/env);
// this layer passes plain data over and shapes the TypeScript API's result objects.
import { describe, invalidArgument } from './errors.js';
import { native } from './native.js';

export const PACK_ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const RESERVED_ENV_PREFIX = 'KINDGI_';
export const PACK_ENV_CHECK_VAR = 'KINDGI_PACK_ENV_CHECK';
export const PACK_ENV_FILTER_VAR = 'KINDGI_PACK_ENV_FILTER';
export const PLATFORM_ENV_NAMES = Object.freeze(native.platformEnvNames());
export const PLATFORM_ENV_PREFIXES = Object.freeze(native.platformEnvPrefixes());

export function resolvePackEnv(env) {
  const outcome = native.resolvePackEnv(env);
  if (outcome.message !== undefined) return { kind: 'err', message: outcome.message };
  if (outcome.required === undefined) return { kind: 'ok', value: undefined };
  return { kind: 'ok', value: { optional: outcome.optional, required: outcome.required } };
}

function declaredLists(declaration) {
  if (declaration === undefined) return { required: [], optional: [] };
  if (declaration === null || typeof declaration !== 'object') {
    throw invalidArgument(`declaration must be a pack env declaration or undefined, not ${describe(declaration)}`);
  }
  const list = (name) => {
    const names = declaration[name] ?? [];
    if (!Array.isArray(names) || names.some((n) => typeof n !== 'string')) {
      throw invalidArgument(`declaration.${name} must be a list of names`);
    }
    return names;
  };
  return { required: list('required'), optional: list('optional') };
}

function environmentObject(environment) {
  if (environment === null || typeof environment !== 'object') {
    throw invalidArgument(`environment must be an object of variables, not ${describe(environment)}`);
  }
  return environment;
}

/**
 * The required names `environment` lacks: unset (`undefined`) or exactly `''`, in the
 * declaration's order. Read here, as TypeScript reads it, so any name is a key (one holding
 * NUL or a lone surrogate too, which a native string cannot carry).
 */
export function missingPackEnv(declaration, environment) {
  const { required } = declaredLists(declaration);
  const variables = environmentObject(environment);
  return required.filter((name) => {
    const value = variables[name];
    return value === undefined || value === '';
  });
}

function setting(outcome) {
  return outcome.message !== undefined
    ? { kind: 'err', message: outcome.message }
    : { kind: 'ok', value: outcome.value };
}

function rawSetting(raw, name) {
  if (raw !== undefined && typeof raw !== 'string') {
    throw invalidArgument(`${name} must be a string or undefined, not ${describe(raw)}`);
  }
  return raw;
}

export function parsePackEnvCheck(raw) {
  return setting(native.parsePackEnvCheck(rawSetting(raw, PACK_ENV_CHECK_VAR)));
}

export function parsePackEnvFilter(raw) {
  return setting(native.parsePackEnvFilter(rawSetting(raw, PACK_ENV_FILTER_VAR)));
}

export function undeclaredPackEnv(declaration, environment) {
  const { required, optional } = declaredLists(declaration);
  return native.undeclaredPackEnv(required, optional, Object.keys(environmentObject(environment)));
}
