// /dashboard/affiliate: the member's side of the affiliate programme. Not an affiliate yet: the
// application form. Applied: where the application stands. Approved (or paused): the link and
// code with copy buttons, the figures, withdrawal to the reseller balance and crypto payouts. In
// development and tests the time is the browser's test clock (/dev/clock), to see a hold end.
import { Copy } from "~/components/icons";
import { AffiliateFigures } from "~/components/affiliate-figures";
import { copyText } from "~/components/copy";
import { useToast } from "~/components/toaster";
import { Badge } from "~/components/ui/badge";
import { Card } from "~/components/ui/card";
import { answer, answerInvalid, type ProblemTitles } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { currentViewer } from "~/http/guards.server";
import { readSubmission } from "~/http/submission.server";
import { clockNow } from "~/http/test-clock.server";
import { BRAND } from "~/lib/brand";
import { formatUsd } from "~/lib/format";
import { hubAffiliateSchema } from "~/lib/schemas/affiliates";
import { affiliateFigures } from "~/server/affiliates/dashboard.server";
import { requestPayout } from "~/server/affiliates/ledger.server";
import { affiliateOf, applyAsAffiliate } from "~/server/affiliates/programme.server";
import { withdrawCommission } from "~/server/resellers/reseller-balance.server";
import { ApplyForm, PayoutForm, WithdrawForm } from "./+shared/affiliate-forms";
import type { Route } from "./+types/affiliate";

export const meta: Route.MetaFunction = () => [{ title: `Affiliate | ${BRAND}` }];

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db } = app(context);
  const viewer = currentViewer(context);
  const affiliate = await affiliateOf(db, viewer.id);
  if (!affiliate || affiliate.status === "pending" || affiliate.status === "declined")
    return { status: affiliate?.status ?? null, earning: null };
  const { code, commissionRate, discountRate, status } = affiliate;
  return {
    status,
    earning: {
      code,
      link: `${new URL(request.url).origin}/r/${code}`,
      commissionRate,
      discountRate,
      figures: await affiliateFigures(db, viewer.id, clockNow(request)),
      // One id per form shown: the same form sent twice moves the money once.
      withdrawRequest: crypto.randomUUID(),
      payoutRequest: crypto.randomUUID(),
    },
  };
}

const titles: ProblemTitles = { invalid: "Please check the form", conflict: "Nothing changed", "not-found": "Not an affiliate" };

export async function action({ request, context }: Route.ActionArgs) {
  const { db } = app(context);
  const viewer = currentViewer(context);
  const submission = await readSubmission(request, hubAffiliateSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const input = submission.value;
  switch (input.intent) {
    case "apply":
      return answer(await applyAsAffiliate(db, viewer, input), {
        titles,
        intent: input.intent,
        success: { title: "Application sent", description: "We answer within two days." },
      });
    case "withdraw":
      return answer(await withdrawCommission(db, viewer, input.request, clockNow(request)), {
        titles,
        intent: input.intent,
        success: ({ cents }) => ({ title: "Withdrawn", description: `${formatUsd(cents)} was added to your reseller balance.` }),
      });
    case "payout":
      return answer(await requestPayout(db, viewer, input, clockNow(request)), {
        titles,
        intent: input.intent,
        success: ({ cents }) => ({ title: "Payout requested", description: `${formatUsd(cents)} will be sent to your address.` }),
      });
  }
}

function CopyRow({ label, value }: { label: string; value: string }) {
  const { toast } = useToast();
  return (
    <div>
      <p className="text-sm text-muted">{label}</p>
      <p className="mt-1 flex items-center gap-2 font-mono wrap-anywhere">
        {value}
        <button
          type="button"
          className="shrink-0 rounded p-1 text-muted hover:text-white"
          aria-label={`Copy your ${label.toLowerCase()}`}
          onClick={() => copyText(value, toast, { title: "Copied!" })}
        >
          <Copy className="size-4" aria-hidden />
        </button>
      </p>
    </div>
  );
}

export default function AffiliatePage({ loaderData }: Route.ComponentProps) {
  const { status, earning } = loaderData;
  return (
    <div className="space-y-8">
      <h1 className="text-3xl font-black">Affiliate</h1>
      {status === null ? <ApplyForm /> : null}
      {status === "pending" ? (
        <Card>
          <p role="status">Thanks for applying. Your application is being reviewed; we answer within two days.</p>
        </Card>
      ) : null}
      {status === "declined" ? (
        <Card>
          <p role="status">Your application was not accepted this time.</p>
        </Card>
      ) : null}
      {earning ? (
        <>
          <Card>
            <div className="flex flex-wrap items-center justify-between gap-2">
              <h2 className="font-bold">Your link and code</h2>
              {status === "paused" ? <Badge tone="yellow">Paused: new orders earn nothing</Badge> : <Badge tone="green">Active</Badge>}
            </div>
            <div className="mt-4 grid gap-4 sm:grid-cols-2">
              <CopyRow label="Link" value={earning.link} />
              <CopyRow label="Code" value={earning.code} />
            </div>
            <p className="mt-4 text-sm text-muted">
              Your audience saves {earning.discountRate}% with your link or code; you earn {earning.commissionRate}% of what they pay.
            </p>
          </Card>
          <AffiliateFigures figures={earning.figures} orders={earning.figures.referred} movements={earning.figures.movements} />
          <Card>
            <h2 className="font-bold">Get paid</h2>
            <p className="mt-1 text-sm text-muted">
              Available commission: {formatUsd(earning.figures.available)}. Move it to your reseller balance at any time and spend it on
              keys, or ask for a crypto payout.
            </p>
            <div className="mt-4 space-y-6">
              <WithdrawForm available={earning.figures.available} request={earning.withdrawRequest} />
              <PayoutForm available={earning.figures.available} request={earning.payoutRequest} />
            </div>
          </Card>
        </>
      ) : null}
    </div>
  );
}
