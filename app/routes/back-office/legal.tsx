// /dashboard/legal: the shop's Terms of Service, Refund Policy and Privacy Policy, edited in
// Markdown by admins. Saving a page drops its cached copy, so buyers see the change at once
// (decision 061).
import { answer, answerInvalid } from "~/http/answer.server";
import { app, staticTextOf } from "~/http/context.server";
import { requireCapability } from "~/http/guards.server";
import { readStaffAction } from "~/http/staff-action.server";
import { BRAND } from "~/lib/brand";
import { LEGAL_PAGES, type LegalSlug } from "~/lib/legal";
import { legalEditSchema } from "~/lib/schemas/legal";
import { clientAddress } from "~/http/caller.server";
import { legalPageSource, saveLegalPage } from "~/server/legal/legal-pages.server";
import { purgePages } from "~/http/edge-cache.server";
import { LegalPageForm } from "./+shared/legal/legal-page-form";
import type { Route } from "./+types/legal";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("legal.edit")];

export const meta: Route.MetaFunction = () => [{ title: `Legal Pages | ${BRAND}` }];

const SLUGS = Object.keys(LEGAL_PAGES) as LegalSlug[];

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db } = app(context);
  const templates = staticTextOf(context, request);
  return { pages: await Promise.all(SLUGS.map(async (slug) => ({ slug, ...(await legalPageSource(db, templates, slug)) }))) };
}

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "legal", legalEditSchema);
  if (!submission.ok) return answerInvalid(submission, { titles: { invalid: "Please check the page" } });
  const { value: input, viewer } = submission;
  const saved = await saveLegalPage(app(context).db, viewer, input.page, input.markdown, clientAddress(request));
  await purgePages(new URL(request.url).origin, [LEGAL_PAGES[input.page].path]);
  return answer(saved, {
    intent: input.intent,
    success: { title: "Page saved", description: `${LEGAL_PAGES[input.page].title} is live.` },
  });
}

export default function LegalPages({ loaderData }: Route.ComponentProps) {
  return (
    <div className="space-y-8">
      <h1 className="text-3xl font-black">Legal Pages</h1>
      <p className="max-w-2xl text-sm text-muted">
        The footer, the sign-up form and the checkout dialog link to these pages. Each starts as a template for a shop selling licence keys:
        read it, adapt it to your shop and your country's law, and save it.
      </p>
      {loaderData.pages.map((page) => (
        <LegalPageForm key={page.slug} {...page} />
      ))}
    </div>
  );
}
