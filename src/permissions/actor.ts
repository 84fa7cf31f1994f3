import { hostname, userInfo } from 'node:os';

/** Who runs a command that changes roles, as role_changes records it: the system user and host. */
export function actor(): string {
  return `${userInfo().username}@${hostname()}`;
}
