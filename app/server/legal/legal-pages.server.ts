// The shop's legal pages: what staff wrote (Markdown, rendered with raw HTML off), or a template
// for a shop selling licence keys until they do (decision 061).
import { eq } from "drizzle-orm";
import type { LegalSlug } from "~/lib/legal";
import { ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { legalPages } from "../platform/db/schema.server";
import privacy from "./templates/privacy.md?url&no-inline";
import refunds from "./templates/refunds.md?url&no-inline";
import terms from "./templates/terms.md?url&no-inline";
import { onFirstUse } from "../platform/on-first-use.server";
import type { StaticText } from "../platform/static-text.server";

const markdownParser = onFirstUse(() => import("../platform/markdown.server"));

/** The templates' files: static assets the Worker reads, not text it carries (decision 119). */
const TEMPLATES: Record<LegalSlug, string> = { terms, refunds, privacy };
/** When the templates were last changed: the date a page shows until staff edit it. */
const TEMPLATES_UPDATED_AT = Date.UTC(2026, 10, 25);

/** A legal page's Markdown, when it last changed, and whether it is still the template. */
export async function legalPageSource(db: Db, templates: StaticText, slug: LegalSlug) {
  const row = await db.select().from(legalPages).where(eq(legalPages.slug, slug)).get();
  const markdown = row?.markdown ?? (await templates(TEMPLATES[slug]));
  return { markdown, updatedAt: row?.updatedAt ?? TEMPLATES_UPDATED_AT, edited: row !== undefined };
}

/**
 * A legal page as the storefront shows it: its HTML (no raw HTML from the source) and its date. The
 * Markdown parser is loaded with the first document shown, not at every start (decision 107).
 */
export async function legalPage(db: Db, templates: StaticText, slug: LegalSlug) {
  const [{ markdown, updatedAt }, { renderMarkdown }] = await Promise.all([legalPageSource(db, templates, slug), markdownParser()]);
  return { html: renderMarkdown(markdown), updatedAt };
}

/** Staff: saves a legal page's Markdown; audited. */
export async function saveLegalPage(
  db: Db,
  staff: Viewer,
  slug: LegalSlug,
  markdown: string,
  ip: string | null,
  now = Date.now(),
): Promise<Result<{ updatedAt: number }>> {
  await db
    .insert(legalPages)
    .values({ slug, markdown, updatedAt: now, updatedBy: staff.id })
    .onConflictDoUpdate({ target: legalPages.slug, set: { markdown, updatedAt: now, updatedBy: staff.id } });
  await audit(db, staff.id, "legal.edit", `legal:${slug}`, { length: markdown.length }, ip);
  return ok({ updatedAt: now });
}
