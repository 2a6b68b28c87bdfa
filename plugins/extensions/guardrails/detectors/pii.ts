/**
 * Personal data in text: `email`, `phone`, `credit_card`, `iban`, `ip`, `us_ssn`. A cheap,
 * bounded candidate scan finds what has the shape; a well-kept validator decides: `validator`
 * (email syntax, card issuer and Luhn checksum, IBAN country format and mod-97 checksum, IP
 * addresses) and `libphonenumber-js` (phone numbers valid in a region's numbering plan).
 * Every candidate pattern has bounded repetitions, so a scan is linear in the text's length.
 */
import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import validator from 'validator';
import { type Detector, type Match, mergeMatches, trailingRun } from '../detector.ts';

export const PII_ENTITIES = ['email', 'phone', 'credit_card', 'iban', 'ip', 'us_ssn'] as const;
export type PiiEntity = (typeof PII_ENTITIES)[number];

/** One entity's scan: its matches, and the characters (and length bound) of a match in progress. */
interface EntityScan {
  find(text: string, out: Match[]): void;
  inRun(code: number): boolean;
  /** Whether a match may start with this character (a run's leading separators are not held). */
  canStart(code: number): boolean;
  readonly maxLength: number;
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
const isHex = (c: number) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
/** `A-Za-z0-9._%+-`: what an address's local part is made of (RFC 5322's dot-atom, as mail systems accept it). */
const isLocal = (c: number) => isDigit(c) || isUpper(c) || isLower(c) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45;
/** `A-Za-z0-9.-`: a domain name's characters. */
const isDomain = (c: number) => isDigit(c) || isUpper(c) || isLower(c) || c === 46 || c === 45;

const MAX_LOCAL = 64;
/** Mailboxes that name no person (RFC 2142's role addresses, no-reply senders): an agent's instructions quote them (`Co-Authored-By: … <noreply@anthropic.com>`). */
const NOT_PERSONAL = new Set(['noreply', 'no-reply', 'donotreply', 'do-not-reply', 'mailer-daemon', 'postmaster', 'hostmaster', 'webmaster', 'abuse']);
const MAX_DOMAIN = 253;

/** Addresses around each `@`: the local part left of it, the domain right of it, then `validator.isEmail`; role mailboxes are not personal data. */
const email: EntityScan = {
  maxLength: MAX_LOCAL + 1 + MAX_DOMAIN,
  inRun: (c) => isLocal(c) || c === 64,
  canStart: isLocal,
  find(text, out) {
    let at = text.indexOf('@');
    let floor = 0;
    while (at !== -1) {
      let start = at;
      while (start > floor && at - start < MAX_LOCAL && isLocal(text.charCodeAt(start - 1))) start--;
      while (start < at && text.charCodeAt(start) === 46) start++;
      let end = at + 1;
      while (end < text.length && end - at <= MAX_DOMAIN && isDomain(text.charCodeAt(end))) end++;
      while (end > at + 1 && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 45)) end--;
      if (
        start < at &&
        end > at + 1 &&
        !NOT_PERSONAL.has(text.slice(start, at).toLowerCase()) &&
        validator.isEmail(text.slice(start, end), { allow_utf8_local_part: false })
      ) {
        out.push({ start, end, entity: 'email' });
        floor = end;
      }
      at = text.indexOf('@', at + 1);
    }
  },
};

const CARD = /(?<![\d-])\d(?:[ -]?\d){12,18}(?!\d)/g;

/** 13 to 19 digits, grouped by spaces or dashes or not; `validator.isCreditCard`: a known issuer's number with a valid Luhn checksum. */
const creditCard: EntityScan = {
  maxLength: 37,
  inRun: (c) => isDigit(c) || c === 32 || c === 45,
  canStart: isDigit,
  find(text, out) {
    for (const m of text.matchAll(CARD)) {
      const digits = m[0].replace(/[ -]/g, '');
      if (validator.isCreditCard(digits)) out.push({ start: m.index, end: m.index + m[0].length, entity: 'credit_card' });
    }
  },
};

const IBAN = /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])/g;

/** Country code, check digits, up to 30 more (spaced in fours or not); `validator.isIBAN`: the country's format and the mod-97 checksum. A trailing group that is another word is tried off. */
const iban: EntityScan = {
  maxLength: 42,
  inRun: (c) => isDigit(c) || isUpper(c) || c === 32,
  canStart: isUpper,
  find(text, out) {
    for (const m of text.matchAll(IBAN)) {
      let candidate = m[0];
      for (let tries = 0; tries < 3; tries++) {
        if (validator.isIBAN(candidate.replaceAll(' ', ''))) {
          out.push({ start: m.index, end: m.index + candidate.length, entity: 'iban' });
          break;
        }
        const space = candidate.lastIndexOf(' ');
        if (space < 15) break;
        candidate = candidate.slice(0, space);
      }
    }
  },
};

const IPV4 = /(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?!\.?\d)/g;
/** Longest IPv6 text: eight groups of four and seven colons, or an IPv4 tail. */
const MAX_IPV6 = 45;

/**
 * IPv4 dotted quads and IPv6 addresses (`validator.isIP`). An IPv6 candidate is the run of hex
 * digits, colons and dots around a colon, found from each colon (code is full of colons and of
 * words of hex letters: no regex tries every position); it needs 4 hex digits and a decimal
 * one, so `std::vector` or `dead::beef` are not addresses.
 */
const ip: EntityScan = {
  maxLength: MAX_IPV6,
  inRun: (c) => isV6(c),
  canStart: (c) => isHex(c) || c === 58,
  find(text, out) {
    const found: Match[] = [];
    for (const m of text.matchAll(IPV4)) if (validator.isIP(m[0], 4)) found.push({ start: m.index, end: m.index + m[0].length, entity: 'ip' });
    const v6: Match[] = [];
    let colon = text.indexOf(':');
    while (colon !== -1) {
      let start = colon;
      while (start > 0 && colon - start < MAX_IPV6 && isV6(text.charCodeAt(start - 1))) start--;
      let end = colon + 1;
      while (end < text.length && end - start < MAX_IPV6 + 1 && isV6(text.charCodeAt(end))) end++;
      while (end > colon + 1 && text.charCodeAt(end - 1) === 46) end--;
      const candidate = text.slice(start, end);
      // a run longer than an address (its start was not reached) is not one
      if ((start === 0 || !isV6(text.charCodeAt(start - 1))) && countHex(candidate) >= 4 && /\d/.test(candidate) && validator.isIP(candidate, 6))
        v6.push({ start, end, entity: 'ip' });
      colon = text.indexOf(':', Math.max(end, colon + 1));
    }
    for (const match of mergeMatches(found, v6)) out.push(match);
  },
};

/** A character of IPv6 text: hex digits, colons, and the dots of an IPv4 tail. */
function isV6(c: number): boolean {
  return isHex(c) || c === 58 || c === 46;
}

function countHex(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (isHex(text.charCodeAt(i))) n++;
  return n;
}

const SSN = /(?<![\d-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\d-])/g;

/** `AAA-GG-SSSS` (or spaced): never area 000, 666 or 900-999, group 00 or serial 0000 (SSA's rules for numbers it issues). Undashed nine-digit runs are not read as SSNs: too many ids look alike. */
const usSsn: EntityScan = {
  maxLength: 11,
  inRun: (c) => isDigit(c) || c === 32 || c === 45,
  canStart: isDigit,
  find(text, out) {
    for (const m of text.matchAll(SSN)) {
      const area = m[1]!;
      if (area === '000' || area === '666' || area[0] === '9' || m[3] === '00' || m[4] === '0000') continue;
      out.push({ start: m.index, end: m.index + m[0].length, entity: 'us_ssn' });
    }
  },
};

const PHONE = /(?<![\w+.-])\+?\(?\d[\d ().-]{5,22}\d(?![\w-]|\.\d)/g;
const SEPARATED = /\d[ ().-]+\d/;

/**
 * Phone numbers `libphonenumber-js` finds valid: in international form (`+44 20 7946 0958`) for
 * any country, in national form for the `regions` given. A national number must be written
 * grouped (`(415) 555-0132`, `030 1234 5678`): bare digit runs are ids, timestamps and counts
 * far more often than phone numbers.
 */
function phone(regions: readonly CountryCode[]): EntityScan {
  return {
    maxLength: 32,
    inRun: (c) => isDigit(c) || c === 32 || c === 40 || c === 41 || c === 43 || c === 45 || c === 46,
    canStart: (c) => isDigit(c) || c === 40 || c === 43,
    find(text, out) {
      for (const m of text.matchAll(PHONE)) {
        const candidate = m[0];
        const digits = countDigits(candidate);
        if (digits < 7 || digits > 15) continue;
        const international = candidate.charCodeAt(0) === 43;
        if (!international && !SEPARATED.test(candidate)) continue;
        if (validPhone(candidate, international, regions)) out.push({ start: m.index, end: m.index + candidate.length, entity: 'phone' });
      }
    },
  };
}

function countDigits(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (isDigit(text.charCodeAt(i))) n++;
  return n;
}

function validPhone(candidate: string, international: boolean, regions: readonly CountryCode[]): boolean {
  if (international) return parsePhoneNumberFromString(candidate)?.isValid() === true;
  for (const region of regions) if (parsePhoneNumberFromString(candidate, region)?.isValid() === true) return true;
  return false;
}

/** Settings of a `pii` check. */
export interface PiiOptions {
  readonly entities: readonly PiiEntity[];
  /** Regions whose national phone numbers are found (ISO 3166-1 alpha-2); international ones always are. */
  readonly phoneRegions: readonly CountryCode[];
}

/** The detector of a `pii` check: the entities asked for, their matches merged in order. */
export function piiDetector(options: PiiOptions): Detector {
  const scans: EntityScan[] = options.entities.map((entity): EntityScan => {
    switch (entity) {
      case 'email':
        return email;
      case 'phone':
        return phone(options.phoneRegions);
      case 'credit_card':
        return creditCard;
      case 'iban':
        return iban;
      case 'ip':
        return ip;
      default:
        return usSsn;
    }
  });
  return {
    find(text) {
      let all: Match[] = [];
      for (const scan of scans) {
        const found: Match[] = [];
        scan.find(text, found);
        all = mergeMatches(all, found);
      }
      return all;
    },
    pending(text) {
      let from = text.length;
      for (const scan of scans) {
        let start = trailingRun(text, scan.inRun, scan.maxLength);
        while (start < text.length && !scan.canStart(text.charCodeAt(start))) start++;
        from = Math.min(from, start);
      }
      return from;
    },
  };
}
