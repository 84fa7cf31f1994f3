/**
 * Several errors of one request, answered together: every bad row of a bulk write, every refused
 * operation of an atomic request, so that a client fixes them all from one answer instead of
 * meeting them one at a time. Each surface lists them in its own shape (GraphQL: one error per
 * row; REST `/operations`: JSON:API error objects), at most MAX_LISTED_ERRORS, saying how many
 * more there were; an import, which has no answer to keep short, lists every one.
 */
import { DomainError } from './errors.ts';

/** Most errors one answer lists (a bulk write takes 1,000 rows: an answer of a thousand errors says no more than a hundred). */
export const MAX_LISTED_ERRORS = 100;

/**
 * A domain error about one row of a request, said of the row (its path before its field and
 * message, as an answer shows it), with the row's index and the error as the rules said it: a
 * caller that places rows its own way (an import: a file's line) takes those, and reads nothing
 * back out of the text.
 */
export class RowError extends DomainError {
  constructor(
    /** The row's index in the request. */
    readonly row: number,
    /** The error before the row's path was put before it. */
    readonly unplaced: DomainError,
    placed: DomainError,
  ) {
    super(placed.kind, placed.message, placed.field, placed.resource, placed.reason, placed.currentVersion);
  }
}

/**
 * Errors about several rows, in the order of the rows. Itself the DomainError of the first
 * (its kind, message and field), so that whatever knows only one error still answers right.
 */
export class DomainErrors extends DomainError {
  /** Every error found: for a caller that lists them all (an import). */
  readonly all: readonly DomainError[];
  /** The errors an answer lists: at most MAX_LISTED_ERRORS. */
  readonly errors: readonly DomainError[];
  /** How many more were found and not listed. */
  readonly omitted: number;

  constructor(errors: readonly DomainError[]) {
    const first = errors[0]!;
    super(first.kind, first.message, first.field, first.resource, first.reason, first.currentVersion);
    this.all = errors;
    this.errors = errors.slice(0, MAX_LISTED_ERRORS);
    this.omitted = errors.length - this.errors.length;
  }

  /** The same errors, each as `change` makes it (a surface naming fields its own way). */
  map(change: (error: DomainError) => DomainError): DomainErrors {
    return new DomainErrors(this.all.map(change));
  }
}

/** Throws what was found: nothing, one error as it is, several as DomainErrors. */
export function throwAll(errors: readonly DomainError[]): void {
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new DomainErrors(errors);
}
