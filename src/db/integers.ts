/**
 * Integers the databases store as `integer`: every id, version, change-log number and integer
 * attribute is 32 bits (PostgreSQL's `integer`; SQLite would hold more, and answer otherwise). A
 * value outside is refused where it comes in, naming where, and never reaches SQL, where
 * PostgreSQL would fail the statement (`out of range for type integer`) and SQLite find nothing.
 */
export const INT32_MIN = -2_147_483_648;
export const INT32_MAX = 2_147_483_647;

/** An id: a whole number from 1 to INT32_MAX. */
export function isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= INT32_MAX;
}

/** The id the digits of `text` name, or undefined when they name none (not digits, a leading zero, past INT32_MAX). */
export function idFromText(text: string): number | undefined {
  if (!/^[1-9]\d{0,9}$/.test(text)) return undefined;
  const id = Number(text);
  return id <= INT32_MAX ? id : undefined;
}

/** The integer `text` writes, or undefined when it is not one the database holds. */
export function int32FromText(text: string): number | undefined {
  if (!/^-?(0|[1-9]\d{0,9})$/.test(text)) return undefined;
  const value = Number(text);
  return value >= INT32_MIN && value <= INT32_MAX ? value : undefined;
}

/** How an integer out of range is described in messages. */
export const INT32_RANGE = `an integer from ${INT32_MIN} to ${INT32_MAX}`;

/** How an id out of range is described in messages. */
export const ID_RANGE = `a whole number from 1 to ${INT32_MAX}`;
