// The fast path's formats that are more than one regular expression: ajv-formats' full-mode
// checks, written for V8 from the port in src/validate/formats.rs (whose comments give each
// rule), so that a string is judged where it is. `__test__/validate-fast.test.mjs` holds every
// one to the native check over the format vectors. Formats not here (uri, url) ask the native
// check, whose url matcher does not backtrack on hostile input.
import { native } from './native.js';

const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const TIME = /^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?$/i;
const DATE_TIME_SEPARATOR = /t|\s/i;
const HOSTNAME = /^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\.?$/i;
const Z_ANCHOR = /[^\\]\\Z/;

function isLeapYear(year) {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** The number the two ASCII digits at `at` write, or -1 where either is not one. */
function twoDigits(text, at) {
  const high = text.charCodeAt(at) - 48;
  const low = text.charCodeAt(at + 1) - 48;
  return high >= 0 && high <= 9 && low >= 0 && low <= 9 ? high * 10 + low : -1;
}

/** `dddd-dd-dd` (ASCII digits), read by hand: a regular expression's match allocates its parts. */
function date(text) {
  if (text.length !== 10 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return false;
  const hundreds = twoDigits(text, 0);
  const rest = twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  if (hundreds < 0 || rest < 0) return false;
  return month >= 1 && month <= 12 && day >= 1 && day <= (month === 2 && isLeapYear(hundreds * 100 + rest) ? 29 : DAYS_IN_MONTH[month]);
}

/** `time` (a zone required) and `iso-time` (optional); a leap second only at 23:59 UTC. */
function time(text, zoneRequired) {
  const parts = TIME.exec(text);
  if (parts === null) return false;
  const hour = Number(parts[1]);
  const minute = Number(parts[2]);
  const second = Number(parts[3]);
  const sign = parts[5] === '-' ? -1 : 1;
  const zoneHour = Number(parts[6] ?? 0);
  const zoneMinute = Number(parts[7] ?? 0);
  if (zoneHour > 23 || zoneMinute > 59 || (zoneRequired && parts[4] === undefined)) return false;
  if (hour <= 23 && minute <= 59 && second < 60) return true;
  const utcMinute = minute - zoneMinute * sign;
  const utcHour = hour - zoneHour * sign - (utcMinute < 0 ? 1 : 0);
  return (utcHour === 23 || utcHour === -1) && (utcMinute === 59 || utcMinute === -1) && second < 61;
}

function dateTime(text, zoneRequired) {
  const parts = text.split(DATE_TIME_SEPARATOR);
  return parts.length === 2 && date(parts[0]) && time(parts[1], zoneRequired);
}

/** `regex`: what `new RegExp(text)` (no flags) accepts, without a `\Z` anchor. */
function regex(text) {
  if (Z_ANCHOR.test(text)) return false;
  try {
    new RegExp(text);
    return true;
  } catch {
    return false;
  }
}

const IN_JAVASCRIPT = {
  date,
  time: (text) => time(text, true),
  'iso-time': (text) => time(text, false),
  'date-time': (text) => dateTime(text, true),
  'iso-date-time': (text) => dateTime(text, false),
  hostname: (text) => HOSTNAME.test(text),
  regex,
  int32: (number) => Number.isInteger(number) && number <= 2147483647 && number >= -2147483648,
  int64: (number) => Number.isInteger(number),
  float: () => true,
  double: () => true,
};

/** The check of the known format `name` (its value already of the format's type). */
export function formatter(name) {
  return Object.hasOwn(IN_JAVASCRIPT, name) ? IN_JAVASCRIPT[name] : (value) => native.checkFormat(name, value);
}
