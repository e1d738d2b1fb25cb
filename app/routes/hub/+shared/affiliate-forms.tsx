// The affiliate page's forms: the application, the withdrawal to the reseller balance and the
// crypto payout request. Each is checked in the browser with the schema the server checks again.
import { useFetcher } from "react-router";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { useResultToast } from "~/components/use-result-toast";
import { MIN_PAYOUT_CENTS } from "~/lib/affiliates";
import { formatUsd } from "~/lib/format";
import { applySchema, payoutSchema } from "~/lib/schemas/affiliates";

const problemTitle = "Please check the form";

export function ApplyForm() {
  const fetcher = useFetcher();
  const { formRef, onSubmit, errors, busy } = useFetcherForm(fetcher, applySchema, { title: problemTitle });
  return (
    <Card>
      <h2 className="font-bold">Apply to the affiliate programme</h2>
      <p className="mt-1 text-sm text-muted">Tell us where you would share us. We answer every application within two days.</p>
      <fetcher.Form ref={formRef} method="post" className="mt-4 space-y-4" onSubmit={onSubmit} noValidate>
        <input type="hidden" name="intent" value="apply" />
        <Field
          label="Your code"
          name="code"
          required
          autoComplete="off"
          hint="3 to 24 letters, digits, - or _. Your audience types it at checkout."
          error={errors.code}
        />
        <Field label="Channel" name="channel" required placeholder="youtube.com/@yourchannel" error={errors.channel} />
        <Field
          label="Audience"
          name="audience"
          required
          placeholder="About 20,000 subscribers, mostly Rust players"
          error={errors.audience}
        />
        <div className="space-y-1.5">
          <label htmlFor="pitch" className="block text-sm font-medium text-zinc-200">
            A few words
          </label>
          <textarea
            id="pitch"
            name="pitch"
            rows={4}
            required
            className="w-full rounded-md border border-line bg-panel-2 p-3 text-sm text-zinc-100 focus:border-accent focus:outline-none aria-invalid:border-red-500"
            aria-invalid={errors.pitch ? true : undefined}
            aria-describedby={errors.pitch ? "pitch-error" : undefined}
          />
          {errors.pitch ? (
            <p id="pitch-error" className="text-xs text-red-400">
              {errors.pitch}
            </p>
          ) : null}
        </div>
        <Button type="submit" disabled={busy}>
          {busy ? "Sending..." : "Send application"}
        </Button>
      </fetcher.Form>
    </Card>
  );
}

export function WithdrawForm({ available, request }: { available: number; request: string }) {
  const fetcher = useFetcher();
  useResultToast(fetcher);
  const busy = fetcher.state !== "idle";
  return (
    <fetcher.Form method="post">
      <input type="hidden" name="intent" value="withdraw" />
      <input type="hidden" name="request" value={request} />
      <Button type="submit" disabled={busy || available <= 0}>
        {busy ? "Moving..." : `Withdraw ${formatUsd(available)} to reseller balance`}
      </Button>
    </fetcher.Form>
  );
}

export function PayoutForm({ available, request }: { available: number; request: string }) {
  const fetcher = useFetcher();
  const { formRef, onSubmit, errors, busy } = useFetcherForm(fetcher, payoutSchema, { title: problemTitle });
  return (
    <fetcher.Form ref={formRef} method="post" className="space-y-3" onSubmit={onSubmit} noValidate>
      <input type="hidden" name="intent" value="payout" />
      <input type="hidden" name="request" value={request} />
      <div className="grid gap-3 sm:grid-cols-2">
        <Field
          label="Amount (USD)"
          name="amount"
          inputMode="decimal"
          placeholder={(MIN_PAYOUT_CENTS / 100).toFixed(2)}
          error={errors.amount}
        />
        <Field label="BTC or LTC address" name="address" autoComplete="off" error={errors.address} />
      </div>
      <Button type="submit" variant="outline" disabled={busy || available < MIN_PAYOUT_CENTS}>
        {busy ? "Requesting..." : "Request crypto payout"}
      </Button>
      <p className="text-xs text-muted">At least {formatUsd(MIN_PAYOUT_CENTS)}. Staff send it and mark it paid with the transaction id.</p>
    </fetcher.Form>
  );
}
