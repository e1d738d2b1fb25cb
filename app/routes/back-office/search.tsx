// /dashboard/search?q=: the quick jump's results, for staff (members get 403). One query finds
// orders by the number people quote, customers by e-mail or username, licences by key, and the
// dashboard's pages by name, each kind only for a role that may open it. A query that names one
// record exactly opens it at once; the box in the sidebar asks with list=1 and never jumps.
import { data, redirect } from "react-router";
import { Link } from "~/components/link";
import { quickJumpSections } from "./+shared/quick-jump-sections";
import { SearchForm } from "./+shared/search-form";
import { Search } from "~/components/icons";
import { Card } from "~/components/ui/card";
import { useSearching } from "~/components/use-searching";
import { app } from "~/http/context.server";
import { currentViewer, requireAnyCapability } from "~/http/guards.server";
import { BRAND } from "~/lib/brand";
import { pagesMatching } from "~/lib/dashboard";
import { checkForm } from "~/lib/form-schema";
import { directHit, QUICK_JUMP_CAPABILITIES, QUICK_JUMP_PATH, quickJumpAsks, quickJumpKindsFor } from "~/lib/quick-jump";
import { quickJumpSchema } from "~/lib/schemas/quick-jump";
import { quickJump } from "~/server/search/quick-jump.server";
import { resetCooldownMs } from "~/server/licences/licences.server";
import type { Route } from "./+types/search";

export const middleware: Route.MiddlewareFunction[] = [requireAnyCapability(...QUICK_JUMP_CAPABILITIES)];

export const meta: Route.MetaFunction = () => [{ title: `Search | ${BRAND}` }];

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  const { role } = currentViewer(context);
  const kinds = quickJumpKindsFor(role);
  const params = new URL(request.url).searchParams;
  const asked = params.get("q") ?? "";
  const input = checkForm(quickJumpSchema, { q: asked, list: params.get("list") ?? undefined });
  if (!input.ok) return data({ q: asked, kinds, sections: [], error: input.problem.message }, { status: 400 });
  const { q, list } = input.value;
  const records = await quickJump(db, q, kinds, resetCooldownMs(env.HWID_RESET_COOLDOWN_DAYS));
  const sections = quickJumpSections(q, records, pagesMatching(role, q));
  const hit = list ? null : directHit(sections);
  if (hit) throw redirect(hit.href);
  return { q, kinds, sections, error: null };
}

export default function QuickJumpResults({ loaderData }: Route.ComponentProps) {
  const { q, kinds, sections, error } = loaderData;
  const searching = useSearching(QUICK_JUMP_PATH);
  const found = sections.filter((section) => section.hits.length > 0);
  return (
    <div className="space-y-8">
      <h1 className="flex items-center gap-3 text-3xl font-black tracking-tight">
        SEARCH <Search className="size-6 text-accent" aria-hidden />
      </h1>
      <Card>
        <SearchForm
          searching={searching}
          label="Find an order, a customer, a licence or a page"
          defaultValue={q}
          maxLength={200}
          spellCheck={false}
          hint={`Type ${quickJumpAsks(kinds)}. A number, e-mail, username or key that names one record opens it.`}
          error={error ?? undefined}
        />
      </Card>
      {q && !error ? (
        <div aria-busy={searching} className="space-y-6">
          <h2 className="font-bold">{`Results for "${q}"`}</h2>
          {found.length === 0 ? (
            <p className="text-sm text-muted">
              Nothing found. Order numbers, e-mails, usernames and keys are matched whole; a username or e-mail also by how it starts.
            </p>
          ) : null}
          {found.map((section) => (
            <Card key={section.kind} padding="p-4 sm:p-6">
              <h3 id={`results-${section.kind}`} className="text-sm font-semibold tracking-wider text-muted uppercase">
                {section.heading}
              </h3>
              <ul aria-labelledby={`results-${section.kind}`} className="mt-3 divide-y divide-line">
                {section.hits.map((hit) => (
                  <li key={hit.href} className="py-2">
                    <Link to={hit.href} className="font-semibold text-accent-soft hover:underline">
                      {hit.label}
                    </Link>
                    <p className="text-sm wrap-anywhere text-muted">{hit.detail}</p>
                  </li>
                ))}
              </ul>
              {section.more ? (
                <Link to={section.more} className="mt-3 inline-block text-sm text-accent underline underline-offset-2">
                  {`Every matching ${section.heading.toLowerCase()}`}
                </Link>
              ) : null}
            </Card>
          ))}
        </div>
      ) : null}
    </div>
  );
}
