// /legal/terms, /legal/refunds, /legal/privacy: the shop's legal pages as staff wrote them in the
// back office (or their templates), with the date they last changed. The same cached bytes for
// everyone; saving a page drops its cached copy (decision 061).
import { Prose } from "~/components/prose";
import { notFound } from "~/http/refusals.server";
import { app, staticTextOf } from "~/http/context.server";
import { BRAND } from "~/lib/brand";
import { formatDate } from "~/lib/format";
import { isLegalSlug, LEGAL_PAGES } from "~/lib/legal";
import { legalPage } from "~/server/legal/legal-pages.server";
import { publicPageHeaders } from "~/http/edge-cache.server";
import type { Route } from "./+types/legal";

export const headers = publicPageHeaders;

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: `${loaderData?.title ?? "Legal"} | ${BRAND}` }];

export async function loader({ request, params, context }: Route.LoaderArgs) {
  if (!isLegalSlug(params.page)) throw notFound();
  const { html, updatedAt } = await legalPage(app(context).db, staticTextOf(context, request), params.page);
  return { title: LEGAL_PAGES[params.page].title, html, updatedAt };
}

export default function LegalPage({ loaderData }: Route.ComponentProps) {
  const { html, updatedAt } = loaderData;
  return (
    <div className="mx-auto max-w-3xl px-4 py-12">
      <Prose html={html} />
      {/* A UTC date, the same for every visitor: the page is cached for all. */}
      <p className="mt-10 border-t border-line pt-4 text-sm text-muted">Last updated {formatDate(updatedAt)}</p>
    </div>
  );
}
