// Staff's bulk changes that destroy (decision 104), as the back office shows them: a preview says
// how many rows and which (a sample) the change will touch; a change that ran can be undone for an
// hour. Shared with the browser, so the types live here.

export type BulkKind = "stock-delete" | "licence-revoke" | "licence-time";

/** What a preview found: its token (the confirmation sends it back), how many rows, and the first few. */
export interface BulkPreview {
  token: string;
  kind: BulkKind;
  count: number;
  /** The first rows as staff recognise them (a code, a masked key and its owner). */
  sample: string[];
  /** What the change does to each row, in a sentence. */
  summary: string;
}

/** A change that ran, for the undo list. */
export interface BulkChangeView {
  id: string;
  kind: BulkKind;
  scope: Record<string, unknown>;
  count: number;
  appliedAt: number;
  /** Until when it can be undone; null once undone or too late. */
  undoUntil: number | null;
  undoneAt: number | null;
  /** What the change and its undo did: `restored`, `skipped` and why. */
  outcome: Record<string, unknown>;
}

/** How many sample rows a preview shows. */
export const PREVIEW_SAMPLE = 10;
