// /dashboard/affiliates: the affiliate programme as staff see it — applications and affiliates
// with their figures, one affiliate's dashboard and ledger (?affiliate=<id>), the crypto payouts
// waiting to be sent, and the ledger's CSV export. Support reads; admins decide and mark payouts
// paid (each intent's capability is checked before its form is read: app/lib/staff-actions.ts).
import { Link } from "~/components/link";
import { AffiliateFigures } from "~/components/affiliate-figures";
import { FileDown } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { Badge, type BadgeTone } from "~/components/ui/badge";
import { buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { type Column, ResponsiveTable } from "~/components/ui/responsive-table";
import { answer, answerInvalid, type ProblemTitles } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { currentViewer, requireCapability } from "~/http/guards.server";
import { readStaffAction } from "~/http/staff-action.server";
import { BRAND } from "~/lib/brand";
import { formatCount, formatUsd } from "~/lib/format";
import { can } from "~/lib/roles";
import { staffAffiliateSchema } from "~/lib/schemas/affiliates";
import { clientAddress } from "~/http/caller.server";
import { affiliateFigures, affiliatesOverview, openPayouts } from "~/server/affiliates/dashboard.server";
import { markPayoutPaid } from "~/server/affiliates/ledger.server";
import { decideAffiliate } from "~/server/affiliates/programme.server";
import { ApproveForm, DecisionButton, MarkPaidForm } from "./+shared/affiliates/affiliate-actions";
import type { Route } from "./+types/affiliates";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("affiliates.view")];

export const meta: Route.MetaFunction = () => [{ title: `Affiliates | ${BRAND}` }];

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db } = app(context);
  const { role } = currentViewer(context);
  const [affiliates, payouts] = await Promise.all([affiliatesOverview(db), openPayouts(db)]);
  const chosen = affiliates.find((a) => a.userId === new URL(request.url).searchParams.get("affiliate"));
  return {
    affiliates,
    payouts,
    chosen: chosen ? { code: chosen.code, email: chosen.email, figures: await affiliateFigures(db, chosen.userId) } : null,
    may: { manage: can(role, "affiliates.manage"), export: can(role, "export") },
  };
}

const titles: ProblemTitles = { invalid: "Please check the form", conflict: "Nothing changed", "not-found": "Not found" };

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "affiliates", staffAffiliateSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const { value: input, viewer } = submission;
  const { db } = app(context);
  const ip = clientAddress(request);
  if (input.intent === "mark-paid") {
    return answer(await markPayoutPaid(db, viewer, input.payout, input.transaction, ip), {
      titles,
      intent: input.intent,
      success: { title: "Payout marked paid" },
    });
  }
  return answer(await decideAffiliate(db, viewer, input, ip), {
    titles,
    intent: input.intent,
    success: (affiliate) => ({ title: "Affiliate updated", description: `${affiliate.code} is now ${affiliate.status}.` }),
  });
}

type Row = Route.ComponentProps["loaderData"]["affiliates"][number];

const STATE_TONE: Record<Row["status"], BadgeTone> = { pending: "yellow", approved: "green", declined: "gray", paused: "orange" };

function Decisions({ row }: { row: Row }) {
  const rates = row.status === "pending" || row.status === "declined" ? null : row;
  return (
    <div className="space-y-2 sm:min-w-56">
      <ApproveForm affiliate={row.userId} from={row.status} code={row.code} rates={rates} />
      <div className="flex flex-wrap gap-2">
        {row.status === "pending" ? (
          <DecisionButton affiliate={row.userId} from={row.status} intent="decline">
            Decline
          </DecisionButton>
        ) : null}
        {row.status === "approved" ? (
          <DecisionButton affiliate={row.userId} from={row.status} intent="pause">
            Pause
          </DecisionButton>
        ) : null}
        {row.status === "paused" ? (
          <DecisionButton affiliate={row.userId} from={row.status} intent="resume">
            Resume
          </DecisionButton>
        ) : null}
      </div>
    </div>
  );
}

const columns = (manage: boolean): Column<Row>[] => [
  {
    label: "Code",
    value: (a) => (
      <Link to={`?affiliate=${a.userId}`} className="font-mono text-accent hover:underline">
        {a.code}
      </Link>
    ),
  },
  {
    label: "Member",
    value: (a) => (
      <Link to={`/dashboard/customers/${a.userId}`} className="hover:underline">
        {a.email}
      </Link>
    ),
  },
  { label: "State", value: (a) => <Badge tone={STATE_TONE[a.status]}>{a.status}</Badge> },
  {
    label: "Application",
    value: (a) => (
      <span className="text-muted">
        {a.channel} · {a.audience} · {a.pitch}
      </span>
    ),
    wrap: true,
  },
  { label: "Rates", value: (a) => `${a.commissionRate}% / ${a.discountRate}% off` },
  { label: "Clicks / orders", value: (a) => `${formatCount(a.clicks)} / ${formatCount(a.orders)}` },
  { label: "Pending / available / paid", value: (a) => `${formatUsd(a.pending)} / ${formatUsd(a.available)} / ${formatUsd(a.paidOut)}` },
  ...(manage ? [{ label: "Decide", value: (a: Row) => <Decisions row={a} />, wrap: true }] : []),
];

export default function Affiliates({ loaderData }: Route.ComponentProps) {
  const { affiliates, payouts, chosen, may } = loaderData;
  return (
    <div className="space-y-8">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-3xl font-black">Affiliates</h1>
        {may.export ? (
          <a href="/dashboard/affiliates/ledger.csv" download className={buttonClass("outline", "sm")}>
            <FileDown className="size-4" aria-hidden /> Export ledger as CSV
          </a>
        ) : null}
      </div>
      <Card>
        <h2 className="font-bold">Applications and affiliates</h2>
        {affiliates.length === 0 ? (
          <p className="mt-3 text-sm text-muted">No applications yet.</p>
        ) : (
          <ResponsiveTable rows={affiliates} columns={columns(may.manage)} rowKey={(a) => a.userId} label="Affiliates" wide />
        )}
      </Card>
      <Card>
        <h2 className="font-bold">Crypto payouts to send</h2>
        {payouts.length === 0 ? (
          <p className="mt-3 text-sm text-muted">No payouts are waiting.</p>
        ) : (
          <ul className="mt-4 space-y-4">
            {payouts.map((p) => (
              <li key={p.id} className="rounded-lg border border-line bg-panel-2 p-3 text-sm">
                <p>
                  <span className="font-mono">{p.code}</span>: {formatUsd(p.cents)} to{" "}
                  <span className="font-mono wrap-anywhere">{p.address}</span>, asked <LocalTime ms={p.requestedAt} />
                </p>
                {may.manage ? (
                  <div className="mt-2">
                    <MarkPaidForm payout={p.id} />
                  </div>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </Card>
      {chosen ? (
        <section aria-label={`Affiliate ${chosen.code}`} className="space-y-4">
          <h2 className="text-xl font-bold">
            {chosen.code} <span className="text-base font-normal text-muted">{chosen.email}</span>
          </h2>
          <AffiliateFigures figures={chosen.figures} orders={chosen.figures.referred} movements={chosen.figures.movements} />
        </section>
      ) : null}
    </div>
  );
}
