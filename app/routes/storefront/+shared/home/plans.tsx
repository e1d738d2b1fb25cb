// "Choose Your Plan": the first product's week and month variants as cards, with its loading,
// empty and not-yet-configured states.
import { Link } from "~/components/link";
import { featuresFor, formatPlanPrice, formatPrice, PLAN_TERM, type PlanOffer, planOf } from "~/lib/plans";
import { Check } from "~/components/icons";
import { useShop } from "~/components/shop";
import { buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";

export function PlansSkeleton() {
  return (
    <div className="grid grid-cols-1 gap-6 md:grid-cols-2" aria-busy="true" aria-label="Loading plans">
      {[0, 1].map((i) => (
        <div key={i} className="h-96 animate-pulse rounded-xl border border-line bg-panel" />
      ))}
    </div>
  );
}

export function Plans({ offer }: { offer: PlanOffer | null }) {
  const { communityUrl } = useShop();
  if (!offer) {
    return (
      <Card className="mx-auto max-w-xl text-center">
        <h3 className="text-xl font-bold">Plans Coming Soon</h3>
        <p className="mt-2 text-muted">We're preparing our plans. Join the community to hear first.</p>
        <a href={communityUrl} target="_blank" rel="noreferrer" className={buttonClass("primary", "md", "mt-6")}>
          Join Discord for Updates
        </a>
      </Card>
    );
  }
  const { weekly, monthly } = offer;
  if (!weekly && !monthly) {
    return (
      <Card className="mx-auto max-w-xl text-center">
        <h3 className="text-xl font-bold">Configuring Plans</h3>
        <p className="mt-2 text-muted">Weekly and monthly plans for {offer.title} are being set up. Check back shortly.</p>
      </Card>
    );
  }
  const cards = [
    weekly && { variant: weekly, period: "wk" as const, name: "Weekly" },
    monthly && { variant: monthly, period: "mo" as const, name: "Monthly" },
  ].filter((c) => !!c);
  return (
    <div className="mx-auto grid max-w-4xl gap-6 md:grid-cols-2">
      {cards.map(({ variant, period, name }) => {
        const best = period === "mo";
        return (
          <Card
            key={variant.id}
            className={`relative flex flex-col ${best ? "border-accent shadow-[0_0_40px_-12px] shadow-accent/60" : ""}`}
          >
            {best ? (
              <span className="absolute -top-3 left-1/2 -translate-x-1/2 rounded-full bg-accent px-3 py-1 text-xs font-black tracking-wider text-zinc-950">
                BEST VALUE
              </span>
            ) : null}
            <h3 className="text-lg font-bold">{name}</h3>
            <p className="text-sm text-muted">{variant.title}</p>
            <p className="mt-4 text-4xl font-black">{formatPlanPrice(variant.price, period)}</p>
            {/* The headline is rounded (no decimals); what is charged is said to the cent, as on the product page. */}
            <p className="mt-1 text-sm text-muted">
              {formatPrice(variant.price)} for {PLAN_TERM[planOf(variant.title)]}, charged once
            </p>
            <ul className="mt-6 flex-1 space-y-2">
              {featuresFor(variant.title).map((feature) => (
                <li key={feature} className="flex items-center gap-2 text-sm">
                  <Check className="size-4 text-accent" aria-hidden /> {feature}
                </li>
              ))}
            </ul>
            <Link to={`/product/${offer.handle}`} className={buttonClass(best ? "primary" : "outline", "lg", "mt-8 w-full")}>
              Get Started Now
            </Link>
          </Card>
        );
      })}
    </div>
  );
}
