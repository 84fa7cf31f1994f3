/** A change-log entry in the old interface's forms, as REST's /changes pages and webhook deliveries carry it. */
import type { ChangeEntry } from './changes.ts';
import { formatCursor } from './changes.ts';
import { atom } from './forms.ts';

/**
 * A log entry as a resource object of type `changes`, its values in the old interface's forms:
 * what REST's /changes pages hold and what a webhook delivery carries as `data`.
 */
export function changeObject(entry: ChangeEntry) {
  return {
    type: 'changes',
    id: formatCursor(entry.seq),
    attributes: {
      resource_type: entry.type,
      resource_id: entry.id,
      op: entry.op,
      version: entry.version,
      changed: entry.changed,
      before: entry.before,
      after: entry.after,
      actor: entry.actor,
      at: atom(entry.at),
    },
    relationships: {
      resource: { data: { type: entry.type, id: entry.id } },
      // The change request whose writes these are, when they are one's.
      ...(entry.changeRequest !== null && {
        change_request: { data: { type: 'change_requests', id: String(entry.changeRequest) } },
      }),
    },
  };
}
