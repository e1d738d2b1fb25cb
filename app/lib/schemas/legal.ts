// The back office's legal page editor: which page, and its Markdown.
import * as v from "valibot";
import { formatCount } from "../format";
import { LEGAL_PAGES, type LegalSlug, MAX_LEGAL_LENGTH } from "../legal";

export const legalEditSchema = v.object({
  intent: v.literal("save"),
  page: v.picklist(Object.keys(LEGAL_PAGES) as LegalSlug[], "Unknown page"),
  markdown: v.pipe(
    v.optional(v.string(), ""),
    v.trim(),
    v.minLength(20, "Write the page (at least 20 characters)"),
    v.maxLength(MAX_LEGAL_LENGTH, `Keep the page under ${formatCount(MAX_LEGAL_LENGTH)} characters`),
  ),
});
