// The affiliates page's staff forms: approve (with the rates and the Shopify discount code),
// decline, pause, resume, and marking a crypto payout paid. Each posts an intent the server checks
// against the staff-action table before it reads the rest; a decision also posts the state it was
// shown in, so it is refused once another member of staff has changed it.
import type { ReactNode } from "react";
import { useFetcher } from "react-router";
import { Button } from "~/components/ui/button";
import { Field } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { useResultToast } from "~/components/use-result-toast";
import { type AffiliateState, DEFAULT_COMMISSION_RATE, DEFAULT_DISCOUNT_RATE } from "~/lib/affiliates";
import { approveSchema, staffAffiliateSchema } from "~/lib/schemas/affiliates";

const title = "Please check the form";

export function ApproveForm({
  affiliate,
  from,
  code,
  rates,
}: {
  affiliate: string;
  from: AffiliateState;
  code: string;
  rates: { commissionRate: number; discountRate: number; shopifyDiscountCode: string | null } | null;
}) {
  const fetcher = useFetcher();
  const { formRef, onSubmit, errors, busy } = useFetcherForm(fetcher, approveSchema, { title });
  return (
    <fetcher.Form ref={formRef} method="post" className="grid gap-2 sm:grid-cols-2 sm:items-end" onSubmit={onSubmit} noValidate>
      <input type="hidden" name="intent" value="approve" />
      <input type="hidden" name="affiliate" value={affiliate} />
      <input type="hidden" name="from" value={from} />
      <Field
        label="Commission %"
        name="commissionRate"
        inputMode="numeric"
        defaultValue={String(rates?.commissionRate ?? DEFAULT_COMMISSION_RATE)}
        error={errors.commissionRate}
      />
      <Field
        label="Discount %"
        name="discountRate"
        inputMode="numeric"
        defaultValue={String(rates?.discountRate ?? DEFAULT_DISCOUNT_RATE)}
        error={errors.discountRate}
      />
      <Field
        label="Shopify discount code"
        name="shopifyDiscountCode"
        defaultValue={rates?.shopifyDiscountCode ?? ""}
        placeholder={code}
        className="sm:col-span-2"
        error={errors.shopifyDiscountCode}
      />
      <Button type="submit" size="sm" className="justify-self-start" disabled={busy}>
        {busy ? "Saving..." : rates ? "Save rates" : "Approve"}
      </Button>
    </fetcher.Form>
  );
}

/** One button that posts an intent about one affiliate (decline, pause, resume), taken from the state it was shown in. */
export function DecisionButton({
  affiliate,
  from,
  intent,
  children,
}: {
  affiliate: string;
  from: AffiliateState;
  intent: "decline" | "pause" | "resume";
  children: ReactNode;
}) {
  const fetcher = useFetcher();
  useResultToast(fetcher);
  return (
    <fetcher.Form method="post">
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="affiliate" value={affiliate} />
      <input type="hidden" name="from" value={from} />
      <Button type="submit" size="sm" variant="outline" disabled={fetcher.state !== "idle"}>
        {children}
      </Button>
    </fetcher.Form>
  );
}

export function MarkPaidForm({ payout }: { payout: number }) {
  const fetcher = useFetcher();
  const { formRef, onSubmit, errors, busy } = useFetcherForm(fetcher, staffAffiliateSchema, { title });
  return (
    <fetcher.Form ref={formRef} method="post" className="flex flex-col gap-2 sm:flex-row sm:items-end" onSubmit={onSubmit} noValidate>
      <input type="hidden" name="intent" value="mark-paid" />
      <input type="hidden" name="payout" value={payout} />
      <Field label="Transaction id" name="transaction" autoComplete="off" className="sm:flex-1" error={errors.transaction} />
      <Button type="submit" size="sm" disabled={busy}>
        {busy ? "Saving..." : "Mark paid"}
      </Button>
    </fetcher.Form>
  );
}
