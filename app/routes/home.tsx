import { Link } from "react-router";
import { buttonClass } from "~/components/ui/button";
import { BRAND, TAGLINE } from "~/lib/brand";
import type { Route } from "./+types/home";

export const meta: Route.MetaFunction = () => [{ title: `${BRAND} | ${TAGLINE}` }];

export default function Home() {
  return (
    <section className="mx-auto flex min-h-[70vh] max-w-4xl flex-col items-center justify-center px-4 text-center">
      <h1 className="text-4xl font-black sm:text-6xl">{BRAND}</h1>
      <p className="mt-4 text-lg text-muted">{TAGLINE}</p>
      <div className="mt-8 flex gap-3">
        <Link to="/products" className={buttonClass("primary", "lg")}>
          Get Started
        </Link>
        <Link to="/status" className={buttonClass("outline", "lg")}>
          System Status
        </Link>
      </div>
    </section>
  );
}
