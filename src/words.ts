/**
 * Words of messages that depend on a number, in one place so that a message built from a count
 * (a limit an operator sets, what a command did) says it in the number the count takes.
 */

/** `count(1, 'row')` is "1 row", `count(2, 'row')` "2 rows"; `plural` where adding "s" is wrong. */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
