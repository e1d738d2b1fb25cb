// The back office's quick jump: one box that finds an order, a customer or a licence by what staff
// have at hand (an order number, an e-mail or username, a key), and the dashboard's pages by name.
// Shared with the browser: the kinds of record, the capability each needs, and a result.
import type { LicenceState } from "./licences";
import type { OrderRow } from "./orders";
import { can, type Capability, type Role } from "./roles";

export const QUICK_JUMP_PATH = "/dashboard/search";

/** At most this many results of each kind; the kind's own page has the rest. */
export const QUICK_JUMP_LIMIT = 5;

/** The records it finds, each only for a role that may open that record's page. */
export const RECORD_KINDS = [
  { kind: "order", capability: "orders.view", heading: "Orders", asks: ["an order number"] },
  { kind: "customer", capability: "customers.view", heading: "Customers", asks: ["an e-mail", "a username"] },
  { kind: "licence", capability: "licences.reset", heading: "Licences", asks: ["a key"] },
] as const satisfies readonly { kind: string; capability: Capability; heading: string; asks: readonly string[] }[];
export type RecordKind = (typeof RECORD_KINDS)[number]["kind"];
export type QuickJumpKind = RecordKind | "page";

export const QUICK_JUMP_CAPABILITIES: Capability[] = RECORD_KINDS.map((kind) => kind.capability);

export function quickJumpKindsFor(role: Role | null): RecordKind[] {
  return RECORD_KINDS.filter((kind) => can(role, kind.capability)).map((kind) => kind.kind);
}

export function isRecordKind(value: string): value is RecordKind {
  return RECORD_KINDS.some((kind) => kind.kind === value);
}

/** What the box finds, in words true for the viewer: "an order number, an e-mail, a username, a key or a page's name". */
export function quickJumpAsks(kinds: readonly RecordKind[]): string {
  const asks = [...RECORD_KINDS.filter((kind) => kinds.includes(kind.kind)).flatMap((kind) => kind.asks), "a page's name"];
  return asks.length > 1 ? `${asks.slice(0, -1).join(", ")} or ${asks.at(-1)}` : asks[0]!;
}

/** What one query found of each kind asked (null for a kind not asked), a few of each. */
export interface QuickJumpRecords {
  orders: { rows: OrderRow[]; more: boolean } | null;
  /** An account, or a card buyer without one (no id). */
  customers: { rows: { id: string | null; email: string; username: string | null }[]; more: boolean } | null;
  licences: { key: string; product: string; ownerEmail: string; state: LicenceState }[] | null;
}

export interface QuickJumpHit {
  kind: QuickJumpKind;
  label: string;
  detail: string;
  href: string;
  /** The query is this record's own identifier (its number, e-mail, username or key), not a part of it. */
  exact: boolean;
}

export interface QuickJumpSection {
  kind: QuickJumpKind;
  heading: string;
  hits: QuickJumpHit[];
  /** The kind's own page, searched for the same words, when it may have more than the hits shown. */
  more: string | null;
}

/**
 * Where the query leads at once: the one record it names exactly (a number, an e-mail, a key), or
 * the only thing found. A key names its licence exactly; its order and owner come with it, by it.
 */
export function directHit(sections: readonly QuickJumpSection[]): QuickJumpHit | null {
  const hits = sections.flatMap((section) => section.hits);
  const exact = hits.filter((hit) => hit.exact);
  if (exact.length === 1) return exact[0]!;
  return hits.length === 1 ? hits[0]! : null;
}
