// The audit log's entry for a change to one licence.
import { maskKey } from "~/lib/licences";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";

/**
 * Audits a change to one licence, by a person (`actorId`) or by the owner's program (null). The
 * log names it by its id, never its key (support reads the log, and a key in it would be a key
 * revealed without the audited reveal); the detail carries the key masked.
 */
export const auditLicence = (
  db: Db,
  actorId: string | null,
  action: string,
  row: { id: number; key: string },
  detail: Record<string, unknown>,
  ip: string | null,
) => audit(db, actorId, action, `licence:${row.id}`, { key: maskKey(row.key), ...detail }, ip);
