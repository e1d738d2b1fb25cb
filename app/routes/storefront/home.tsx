// The home page: hero, why choose us, before/after, plans and the community call to action.
// The page is public and cached; the plans come with it, or stream in behind a skeleton when
// the catalogue is slow to answer.
import { type ReactNode, Suspense, use, useEffect } from "react";
import { Link } from "~/components/link";
import { HeroBackground } from "./+shared/home/hero-video";
import { IntroSplash, useIntroOver } from "./+shared/home/intro-splash";
import { Plans, PlansSkeleton } from "./+shared/home/plans";
import { Activity, EyeOff, ShieldCheck, Users, Zap } from "~/components/icons";
import { useShop } from "~/components/shop";
import { useToast } from "~/components/toaster";
import { Button, buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { BRAND, COMMUNITY_SIZE, TAGLINE, TAGLINE_PARTS } from "~/lib/brand";
import { type PlanOffer, planOffer } from "~/lib/plans";
import type { Toast } from "~/lib/toast";
import { CatalogueError } from "~/server/catalogue/catalogue.server";
import { LIMITS } from "~/server/catalogue/queries.server";
import { app } from "~/http/context.server";
import { settledWithin } from "~/lib/settled-within";
import { publicPageHeaders } from "~/http/edge-cache.server";
import type { Route } from "./+types/home";

export const meta: Route.MetaFunction = ({ loaderData }) => {
  const description = `${BRAND}: undetected Rust tools with instant key delivery, weekly, monthly and lifetime plans, and a ${COMMUNITY_SIZE} member community.`;
  return [
    { title: `${BRAND} | ${TAGLINE}` },
    { name: "description", content: description },
    { property: "og:title", content: `${BRAND} | ${TAGLINE}` },
    { property: "og:description", content: description },
    { property: "og:type", content: "website" },
    // Social sites want an absolute address and a 1200×630 raster image.
    ...(loaderData
      ? [
          { property: "og:image", content: `${loaderData.origin}/images/og.png` },
          { property: "og:image:width", content: "1200" },
          { property: "og:image:height", content: "630" },
        ]
      : []),
    { name: "twitter:card", content: "summary_large_image" },
  ];
};

export const headers = publicPageHeaders;

interface PlansData {
  offer: PlanOffer | null;
  notice: Toast | null;
}

/**
 * How long a render waits for the plans before it streams them behind the skeleton: the catalogue
 * from the Worker's cache answers well within it, a call to Shopify itself does not (decision 130).
 */
const PLANS_WAIT_MS = 25;

export async function loader({ request, context }: Route.LoaderArgs) {
  const plans: Promise<PlansData> = app(context)
    .catalogue.listProducts({ first: LIMITS.listProducts, variantsFirst: LIMITS.listVariants, imagesFirst: LIMITS.listImages })
    .then((products) => ({ offer: planOffer(products), notice: null }))
    .catch((error: unknown) => {
      // A 402 from Shopify is worth telling the visitor about; anything else is only logged.
      console.error("Failed to load products for the home page:", error);
      const notice: Toast | null =
        error instanceof CatalogueError && error.kind === "payment-required"
          ? {
              title: error.message,
              description:
                "Storefront API access requires an active Shopify billing plan. Visit https://admin.shopify.com to upgrade your store.",
              variant: "destructive",
            }
          : null;
      return { offer: null, notice };
    });
  return { plans: (await settledWithin(plans, PLANS_WAIT_MS)) ?? plans, origin: new URL(request.url).origin };
}

const REASONS = [
  { icon: EyeOff, title: "Undetected", text: "Kernel-level protection and constant signature rotation keep you off the radar." },
  { icon: Zap, title: "Performance", text: "Lightweight by design: no frame drops, no input lag, even on busy servers." },
  { icon: ShieldCheck, title: "Secure", text: "Encrypted loader, HWID-locked keys and a team that answers within hours." },
];

/**
 * What a value the loader may still be waiting for draws: at once when it came with the page, and
 * behind `fallback` while it streams. The boundary is there either way, so that a revalidation
 * that brings the other kind keeps what is shown. React's use() keeps the promise's state on the
 * promise, where React Router's Await renders an error-boundary class and a context around every
 * use, which a render pays for per use.
 */
function Streamed<T>({ value, fallback, children }: { value: T | Promise<T>; fallback: ReactNode; children: (value: T) => ReactNode }) {
  return (
    <Suspense fallback={fallback}>{value instanceof Promise ? <Resolved promise={value}>{children}</Resolved> : children(value)}</Suspense>
  );
}

function Resolved<T>({ promise, children }: { promise: Promise<T>; children: (value: T) => ReactNode }) {
  return children(use(promise));
}

function NoticeToast({ notice }: { notice: Toast | null }) {
  const { toast } = useToast();
  useEffect(() => {
    if (notice) toast(notice);
  }, [notice, toast]);
  return null;
}

export default function Home({ loaderData }: Route.ComponentProps) {
  const { communityUrl, heroVideoId } = useShop();
  const introOver = useIntroOver();
  const getStartedDisabled = (
    <Button size="lg" disabled>
      Get Started
    </Button>
  );
  return (
    <>
      {introOver ? null : <IntroSplash />}
      <section className="relative isolate flex min-h-[calc(100dvh-4rem)] items-center overflow-hidden">
        <div className="absolute inset-0 -z-10 bg-[radial-gradient(ellipse_at_top,rgba(249,115,22,0.25),transparent_60%),linear-gradient(180deg,#0b0b10,#0b0b10)]">
          <HeroBackground videoId={heroVideoId} heroVisible={introOver} />
          <div className="absolute inset-0 bg-gradient-to-b from-surface/40 via-surface/60 to-surface" />
        </div>
        <div className="mx-auto max-w-4xl px-4 text-center">
          <p className="inline-flex items-center gap-2 rounded-full border border-accent/40 bg-accent/10 px-3 py-1 text-xs font-semibold text-accent-soft">
            <Activity className="size-3.5" aria-hidden /> Updated for the latest Rust patch
          </p>
          <h1 className="mt-6 text-4xl font-black tracking-tight sm:text-6xl">
            {TAGLINE_PARTS[0]} <span className="text-accent">{TAGLINE_PARTS[1]}</span>
          </h1>
          <p className="mx-auto mt-5 max-w-2xl text-lg text-muted">
            {BRAND} gives you the edge in Rust: precise aim, full ESP and a clean menu, delivered instantly by key.
          </p>
          <div className="mt-10 flex flex-col justify-center gap-3 sm:flex-row">
            <Streamed value={loaderData.plans} fallback={getStartedDisabled}>
              {({ offer }) =>
                offer ? (
                  <Link to={`/product/${offer.handle}`} className={buttonClass("primary", "lg")}>
                    Get Started
                  </Link>
                ) : (
                  getStartedDisabled
                )
              }
            </Streamed>
            <Link to="/status" className={buttonClass("outline", "lg")}>
              System Status
            </Link>
          </div>
        </div>
      </section>

      <HomeSection
        id="why"
        title={
          <>
            Why Choose <span className="text-accent">{BRAND}</span>
          </>
        }
      >
        <div className="mt-10 grid gap-6 md:grid-cols-3">
          {REASONS.map(({ icon: Icon, title, text }) => (
            <Card key={title}>
              <Icon className="size-8 text-accent" aria-hidden />
              <h3 className="mt-4 text-lg font-bold">{title}</h3>
              <p className="mt-2 text-sm text-muted">{text}</p>
            </Card>
          ))}
        </div>
      </HomeSection>

      <HomeSection id="difference" title="See The Difference">
        <div className="mt-10 grid gap-6 md:grid-cols-2">
          {[
            { name: "difference-standard", label: "STANDARD", alt: "A Rust scene without assistance: enemies hard to spot" },
            { name: "difference-with", label: `WITH ${BRAND.toUpperCase()}`, alt: `The same scene with ${BRAND}: enemies boxed and named` },
          ].map((image) => (
            <figure key={image.label} className="overflow-hidden rounded-xl border border-line bg-panel">
              {/* Raster, not SVG: an SVG image is laid out and painted on the main thread while the page loads (decision 041). */}
              <img
                src={`/images/${image.name}-800.webp`}
                srcSet={`/images/${image.name}-800.webp 800w, /images/${image.name}-1600.webp 1600w`}
                sizes="(min-width: 768px) 50vw, 100vw"
                alt={image.alt}
                width={800}
                height={450}
                loading="lazy"
                decoding="async"
                className="aspect-video w-full object-cover"
              />
              <figcaption className="border-t border-line px-4 py-3 text-center text-sm font-black tracking-widest">
                {image.label === "STANDARD" ? image.label : <span className="text-accent">{image.label}</span>}
              </figcaption>
            </figure>
          ))}
        </div>
      </HomeSection>

      <HomeSection id="plans" title="Choose Your Plan">
        <p className="mt-3 text-center text-muted">Instant delivery. Cancel any time — plans never renew on their own.</p>
        <div className="mt-12">
          <Streamed value={loaderData.plans} fallback={<PlansSkeleton />}>
            {({ offer, notice }) => (
              <>
                <NoticeToast notice={notice} />
                <Plans offer={offer} />
              </>
            )}
          </Streamed>
        </div>
      </HomeSection>

      <section className="mx-auto max-w-7xl px-4 pt-10 pb-24">
        <Card padding="p-6 sm:p-10" className="flex flex-col items-center gap-4 bg-gradient-to-br from-accent/15 to-panel text-center">
          <Users className="size-10 text-accent" aria-hidden />
          <h2 className="text-3xl font-black">Join {COMMUNITY_SIZE} members</h2>
          <p className="max-w-xl text-muted">
            Configs, giveaways, update news and a support team that plays the game. Say hello in our Discord.
          </p>
          <a href={communityUrl} target="_blank" rel="noreferrer" className={buttonClass("primary", "lg")}>
            Join the Community
          </a>
        </Card>
      </section>
    </>
  );
}

function HomeSection({ id, title, children }: { id: string; title: ReactNode; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="mx-auto max-w-7xl px-4 py-20">
      <h2 id={id} className="text-center text-3xl font-black">
        {title}
      </h2>
      {children}
    </section>
  );
}
