// Signing in, signing up and their steps: a page that cannot be shown (Discord sign-in not set up,
// say) sends the visitor back to the sign-in page.
import { Outlet } from "react-router";
import { errorMeta, GeneralErrorBoundary, NotFoundPage } from "~/components/error-boundary";
import type { WayBack } from "~/components/status-pages";
import type { Route } from "./+types/layout";

const SIGN_IN: WayBack = { to: "/auth", label: "Back to sign in" };

export default function Auth() {
  return <Outlet />;
}

export const meta: Route.MetaFunction = ({ error }) => errorMeta(error);

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return (
    <GeneralErrorBoundary
      error={error}
      back={SIGN_IN}
      statusHandlers={{ 404: () => <NotFoundPage title="This page does not exist" back={SIGN_IN} /> }}
    />
  );
}
